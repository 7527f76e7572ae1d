/**
 * Idempotency keys (CONTRACT §9.2) as a request holds one: a claim that is taken comes with the only two ways to
 * let go of it, completing it with the response or releasing it for a retry.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Claim, claimKey, completeKey, type IdempotentRequest, releaseKey } from './repository.ts';

interface StoredResponse {
  status: number;
  body: string;
  contentType: string | null;
  /** The hash of a streamed upload, known only once the route has read it; null keeps the one claimed with. */
  bodyHash: string | null;
}

type KeyClaim =
  | Exclude<Claim, { kind: 'claimed' }>
  | { kind: 'claimed'; complete(response: StoredResponse): Promise<void>; release(): Promise<void> };

/** `em` should be the request's own fork: the claim is settled after the route, whatever the route's unit of work holds. */
export async function claimIdempotencyKey(em: EntityManager, request: IdempotentRequest): Promise<KeyClaim> {
  const claim = await claimKey(em, request);
  if (claim.kind !== 'claimed') return claim;
  return {
    kind: 'claimed',
    complete: (response) => completeKey(em, claim.id, response),
    release: () => releaseKey(em, claim.id),
  };
}
