/** An organization's people (CONTRACT §15): invites that admit one member each, the members, and removing one. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { newToken, sha256Hex } from '../auth/tokens.ts';
import { OrganizationInvite, User } from '../db/entities/index.ts';
import { kysely } from '../db/kysely.ts';
import { ApiError, notFound } from '../errors.ts';

const INVITE_TTL_MS = 7 * 24 * 3600_000;

/** A new invite; the token is in this answer only (the database keeps its SHA-256). */
export async function createInvite(em: EntityManager, organizationId: string, createdBy: string | null) {
  const token = newToken();
  const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
  em.create(OrganizationInvite, { organization: organizationId, createdBy, tokenHash: sha256Hex(token), expiresAt, usedAt: null });
  await em.flush();
  return { token, expiresAt };
}

const badInvite = () =>
  new ApiError('validation_error', 'The invite is unknown, used or expired: ask for a new one', [
    { path: 'json.inviteToken', message: 'unknown, used or expired' },
  ]);

/**
 * Inside the signup's transaction: marks the invite used and answers its organization. The conditional update
 * makes it single use however many signups race for it.
 */
export async function redeemInvite(tx: EntityManager, token: string): Promise<string> {
  const invite = await kysely(tx)
    .updateTable('organization_invite')
    .set({ usedAt: sql<Date>`now()` })
    .where('tokenHash', '=', sha256Hex(token))
    .where('usedAt', 'is', null)
    .where('expiresAt', '>', sql<Date>`now()`)
    .returning('organization')
    .executeTakeFirst();
  if (!invite) throw badInvite();
  return invite.organization;
}

export async function membersOf(em: EntityManager, organizationId: string) {
  return em.find(User, { organization: organizationId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** Removes a member with their sessions (cascade); an owner cannot be removed, by themself or anyone. */
export async function removeMember(em: EntityManager, organizationId: string, userId: string): Promise<void> {
  const user = await em.findOne(User, { id: userId, organization: organizationId });
  if (!user) throw notFound('Member');
  if (user.role === 'owner') {
    throw new ApiError('unprocessable', 'The owner cannot be removed from the organization', { reason: 'owner_cannot_be_removed' });
  }
  await em.nativeDelete(User, { id: user.id });
}
