import type { EntityManager } from '@mikro-orm/postgresql';
import { kysely } from '../db/kysely.ts';
import { LoginFailure } from '../db/entities/index.ts';

export const WINDOW_MS = 15 * 60_000;
/** Failures of one email from one client address, and of one client address over all emails. */
export const MAX_FAILURES = 10;
/**
 * Failures of one email from every address together. Far above MAX_FAILURES, so a stranger cannot lock an
 * account by failing from one address (the owner, signing in from another, is not throttled by that), yet a
 * guesser spread over many addresses still meets a ceiling.
 */
export const MAX_ACCOUNT_FAILURES = 100;

/**
 * Seconds until the caller may try again, or 0. Failures are counted in PostgreSQL so every API process
 * sees the same ones: once a rule's limit is reached within the window, the next attempt waits until the
 * oldest failure that counts leaves the window.
 */
export async function throttledForSeconds(em: EntityManager, email: string, clientIp: string): Promise<number> {
  const since = new Date(Date.now() - WINDOW_MS);
  const db = kysely(em);
  // The failure that reaches a rule's limit (the nth newest within the window), per rule; null while under it.
  const nth = (n: number) => db.selectFrom('login_failure').select('createdAt').where('createdAt', '>', since).orderBy('createdAt', 'desc').offset(n - 1).limit(1);
  const row = await db
    .selectNoFrom([
      nth(MAX_FAILURES).where('email', '=', email).where('clientIp', '=', clientIp).as('pair'),
      nth(MAX_FAILURES).where('clientIp', '=', clientIp).as('address'),
      nth(MAX_ACCOUNT_FAILURES).where('email', '=', email).as('account'),
    ])
    .executeTakeFirst();
  const latest = Math.max(...[row?.pair, row?.address, row?.account].map((at) => (at ? new Date(at).getTime() : 0)));
  const until = latest + WINDOW_MS;
  return latest > 0 && until > Date.now() ? Math.ceil((until - Date.now()) / 1000) : 0;
}

export async function recordFailure(em: EntityManager, email: string, clientIp: string) {
  em.create(LoginFailure, { email, clientIp });
  await em.flush();
}
