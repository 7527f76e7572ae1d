/** Accounts: signing up (a user with its organization), signing in, and what `/api/auth/me` shows of them. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { recordFailure, throttledForSeconds } from '../auth/login-throttle.ts';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../auth/passwords.ts';
import { Organization, User } from '../db/entities/index.ts';
import type { IOrganization } from '../db/entities/organization.ts';
import type { IUser } from '../db/entities/user.ts';
import { applyCredits } from './credits.ts';
import { ApiError } from '../errors.ts';
import { redeemInvite } from './team.ts';

export interface Account {
  user: IUser;
  organization: IOrganization;
}

/** A new organization (`organizationName`), or joining one through an invite (`inviteToken`). */
export type SignUp = { email: string; password: string; name?: string } & ({ organizationName: string } | { inviteToken: string });

/**
 * Creates the user and, for a new organization, the organization with `signupCredits` granted in the same
 * transaction, its signer-up its owner; an invite makes the user a member of the inviting organization, with no
 * credits granted. Answers the user's id.
 */
export async function signUp(em: EntityManager, input: SignUp, signupCredits: number): Promise<string> {
  const passwordHash = await hashPassword(input.password);
  return em.transactional(async (tx) => {
    if (await tx.count(User, { email: input.email })) throw new ApiError('conflict', 'An account with this email already exists');
    const person = { email: input.email, name: input.name ?? null, passwordHash };
    if ('inviteToken' in input) {
      const member = tx.create(User, { organization: await redeemInvite(tx, input.inviteToken), role: 'member', ...person });
      await tx.flush();
      return member.id;
    }
    const org = tx.create(Organization, { name: input.organizationName });
    const user = tx.create(User, { organization: org, role: 'owner', ...person });
    await tx.flush();
    if (signupCredits > 0) {
      await applyCredits(tx, {
        organizationId: org.id,
        delta: signupCredits,
        reason: 'Signup grant',
        refType: 'signup',
        refId: org.id,
        idempotencyKey: `signup:${org.id}`,
      });
    }
    return user.id;
  });
}

/**
 * Answers the user's id when the password is right. An unknown email costs the same hash as a known one, so the
 * answer's time does not tell them apart; failures count toward the per-address and per-account throttle.
 */
export async function signIn(em: EntityManager, email: string, password: string, clientAddress: string): Promise<string> {
  const wait = await throttledForSeconds(em, email, clientAddress);
  if (wait > 0) {
    throw new ApiError('rate_limited', 'Too many failed sign-ins; try again later', { retryAfterSeconds: wait }, { 'Retry-After': String(wait) });
  }
  const user = await em.findOne(User, { email });
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) {
    await recordFailure(em, email, clientAddress);
    throw new ApiError('unauthorized', 'Email or password is wrong');
  }
  return user.id;
}

/** Read fresh: the balance moves under other requests and workers. */
export async function accountOf(em: EntityManager, userId: string): Promise<Account> {
  const user = await em.findOneOrFail(User, userId, { populate: ['organization'], refresh: true });
  return { user, organization: user.organization };
}
