import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';
import { User } from './user.ts';

/** A key for integrations. The secret itself is never stored: only its SHA-256, looked up by unique index. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  indexes: [{ properties: ['organization', 'id'] }],
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
