import type { EntityManager } from '@mikro-orm/postgresql';
import { LoginFailure } from '../db/entities/index.ts';

export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60_000;

/**
 * Seconds until the caller may try again, or 0. Failures are counted in PostgreSQL so every API process
 * sees the same ones: with MAX_FAILURES failures for one email or one client address within the window,
 * the next attempt waits until the MAX_FAILURES-th most recent one leaves the window.
 */
export async function throttledForSeconds(em: EntityManager, email: string, clientIp: string): Promise<number> {
  const since = new Date(Date.now() - WINDOW_MS);
  const nth = (where: { email: string } | { clientIp: string }) =>
    em.findOne(
      LoginFailure,
      { ...where, createdAt: { $gt: since } },
      { orderBy: { createdAt: 'desc' }, offset: MAX_FAILURES - 1, fields: ['createdAt'] },
    );
  const [byEmail, byIp] = await Promise.all([nth({ email }), nth({ clientIp })]);
  const until = Math.max(byEmail?.createdAt.getTime() ?? 0, byIp?.createdAt.getTime() ?? 0) + WINDOW_MS;
  return until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : 0;
}

export async function recordFailure(em: EntityManager, email: string, clientIp: string) {
  em.create(LoginFailure, { email, clientIp });
  await em.flush();
}
