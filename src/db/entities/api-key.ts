import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';
import { User } from './user.ts';

/** A key for integrations. The secret itself is never stored: only its SHA-256, looked up by unique index. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  indexes: [{ properties: ['organization', 'id'] }],
  // API processes keep key lookups in memory: every change that can refuse a key (revocation, expiry,
  // scopes, owner, deletion) is announced on `api_key_changed` with the key's hash at commit, whoever made
  // it (API, admin CLI, plain SQL). `last_used_at` alone announces nothing; nor does a new key, whose
  // random secret no process can have seen.
  triggers: [
    {
      name: 'api_key_changed',
      timing: 'after',
      events: ['update', 'delete'],
      body: `if tg_op = 'DELETE' or (old.revoked_at, old.expires_at, old.scopes, old.organization_id, old.key_hash) is distinct from (new.revoked_at, new.expires_at, new.scopes, new.organization_id, new.key_hash) then perform pg_notify('api_key_changed', old.key_hash); end if; return null;`,
    },
  ],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    createdBy: () => p.manyToOne(User).deleteRule('set null').nullable(),
    name: p.string().length(200),
    scopes: p.array(),
    keyHash: p.string().length(64).unique(),
    /** The first characters of the key, in clear, so a person can tell keys apart. */
    start: p.string().length(16),
    expiresAt: p.datetime().nullable(),
    /** Refreshed at most once a minute (see recordApiKeyUse), never a write per request. */
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: createdAtProperty(),
  },
});
export type IApiKey = InferEntity<typeof ApiKey>;
