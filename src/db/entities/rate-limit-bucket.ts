import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One token bucket per caller (`key:<apiKeyId>`, `session:<sessionId>`). Kept in PostgreSQL so every API
 * process draws on the same budget; only ever changed by the single upsert in `reserveTokens`. The table is
 * UNLOGGED (see its migration): buckets are worth no WAL flush, and a crash only refills them.
 */
export const RateLimitBucket = defineEntity({
  name: 'RateLimitBucket',
  properties: {
    bucket: p.string().length(100).primary(),
    tokens: p.double(),
    /** Tokens the latest reservation got: the upsert's RETURNING cannot see the row it replaced. */
    granted: p.integer(),
    updatedAt: p.datetime(),
  },
});
export type IRateLimitBucket = InferEntity<typeof RateLimitBucket>;
