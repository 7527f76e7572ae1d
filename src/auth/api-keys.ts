import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { ApiKey } from '../db/entities/index.ts';
import type { IApiKey } from '../db/entities/api-key.ts';
import { apiKeyStart, generateApiKey } from '../domain/api-key-format.ts';
import type { Scope } from '../domain/scopes.ts';
import { notFound } from '../errors.ts';
import { sha256Hex } from './tokens.ts';

/** How stale `lastUsedAt` may get before a use writes it again. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export type StoredApiKey = IApiKey;

export interface NewApiKey {
  organizationId: string;
  userId: string | null;
  name: string;
  scopes: readonly Scope[];
  expiresAt: Date | null;
}

/** Stores the key's hash and returns the secret, which exists nowhere else from now on. */
export async function issueApiKey(em: EntityManager, input: NewApiKey): Promise<{ apiKey: StoredApiKey; key: string }> {
  const key = generateApiKey();
  const apiKey = em.create(ApiKey, {
    organization: input.organizationId,
    createdBy: input.userId,
    name: input.name,
    scopes: [...input.scopes],
    keyHash: sha256Hex(key),
    start: apiKeyStart(key),
    expiresAt: input.expiresAt,
    lastUsedAt: null,
    revokedAt: null,
  });
  await em.flush();
  return { apiKey, key };
}

export function listApiKeys(em: EntityManager, organizationId: string) {
  return em.find(ApiKey, { organization: organizationId }, { orderBy: { id: 'desc' } });
}

/**
 * Idempotent: revoking a revoked key keeps its first revocation time. Returns the key's hash: the revoking
 * process forgets it at once, the others hear of it from the change notification.
 */
export async function revokeApiKey(em: EntityManager, organizationId: string, id: string): Promise<string> {
  const apiKey = await em.findOne(ApiKey, { id, organization: organizationId });
  if (!apiKey) throw notFound('API key');
  apiKey.revokedAt ??= new Date();
  await em.flush();
  return apiKey.keyHash;
}

/** What a request needs to know about the key it presented; times in epoch milliseconds. */
export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  scopes: Scope[];
  revoked: boolean;
  expiresAt: number | null;
  lastUsedAt: number | null;
}

// Every cache miss runs this: a named statement over the hash's unique index, no entity hydration.
const LOOKUP = `
select id, organization_id as "organizationId", scopes, revoked_at is not null as revoked,
       (extract(epoch from expires_at) * 1000)::float8 as "expiresAt",
       (extract(epoch from last_used_at) * 1000)::float8 as "lastUsedAt"
  from api_key
 where key_hash = $1`;

/** The key stored under this hash, if any; no secret is ever compared in application code. */
export async function lookupApiKey(pool: Pool, keyHash: string): Promise<ApiKeyRecord | null> {
  const { rows } = await pool.query<ApiKeyRecord>({ name: 'api_key_lookup', text: LOOKUP, values: [keyHash] });
  return rows[0] ?? null;
}

/**
 * Coalesced audit: callers write only when their copy of `lastUsedAt` is a minute old, and the UPDATE's own
 * condition keeps several processes (each holding a stale copy) down to one write per minute between them.
 */
export async function recordApiKeyUse(pool: Pool, id: string): Promise<void> {
  await pool.query({
    name: 'api_key_touch',
    text: `update api_key set last_used_at = now()
            where id = $1 and (last_used_at is null or last_used_at <= now() - $2 * interval '1 millisecond')`,
    values: [id, LAST_USED_RESOLUTION_MS],
  });
}
