import type { EntityManager } from '@mikro-orm/postgresql';
import { Session } from '../db/entities/index.ts';
import { newToken, sha256Hex } from './tokens.ts';

export const SESSION_COOKIE = 'sid';

export async function createSession(em: EntityManager, userId: string, ttlMs: number) {
  const token = newToken();
  const expiresAt = new Date(Date.now() + ttlMs);
  em.create(Session, { user: userId, tokenHash: sha256Hex(token), expiresAt });
  await em.flush();
  return { token, expiresAt };
}

/** The live session's user and organization, or null when the token is unknown or expired. */
export async function findSession(em: EntityManager, token: string) {
  const session = await em.findOne(
    Session,
    { tokenHash: sha256Hex(token), expiresAt: { $gt: new Date() } },
    { populate: ['user'] },
  );
  if (!session) return null;
  return { sessionId: session.id, userId: session.user.id, organizationId: session.user.organization.id, role: session.user.role };
}

export async function deleteSession(em: EntityManager, token: string) {
  await em.nativeDelete(Session, { tokenHash: sha256Hex(token) });
}
