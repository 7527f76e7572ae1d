import type { EntityManager } from '@mikro-orm/postgresql';
import { Session } from '../db/entities/index.ts';
import { kysely } from '../db/kysely.ts';
import { newToken, sha256Hex } from './tokens.ts';

export const SESSION_COOKIE = 'sid';

export async function createSession(em: EntityManager, userId: string, ttlMs: number) {
  const token = newToken();
  const expiresAt = new Date(Date.now() + ttlMs);
  em.create(Session, { user: userId, tokenHash: sha256Hex(token), expiresAt });
  await em.flush();
  return { token, expiresAt };
}

/**
 * The live session's user and organization, or null when the token is unknown or expired. Every dashboard request
 * asks this: one indexed join read as plain values, no entities built (a job polled every second pays it each time).
 */
export async function findSession(em: EntityManager, token: string) {
  const session = await kysely(em)
    .selectFrom('session as s')
    .innerJoin('app_user as u', 'u.id', 's.user')
    .select(['s.id as sessionId', 'u.id as userId', 'u.organization as organizationId', 'u.role as role'])
    .where('s.tokenHash', '=', sha256Hex(token))
    .where('s.expiresAt', '>', new Date())
    .executeTakeFirst();
  return session ?? null;
}

export async function deleteSession(em: EntityManager, token: string) {
  await em.nativeDelete(Session, { tokenHash: sha256Hex(token) });
}
