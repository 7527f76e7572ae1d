import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';

/**
 * An `Idempotency-Key` of an organization (CONTRACT §9.2). The row is claimed before the request runs
 * (`status` null = still running) and completed with the response to replay; rows older than 24 h no
 * longer count and are replaced on the next claim.
 */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  uniques: [{ properties: ['organization', 'key'] }],
  // The periodic cleanup deletes by age.
  indexes: [{ properties: ['createdAt'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    key: p.string().length(255),
    method: p.string().length(10),
    path: p.text(),
    /** SHA-256 of the raw request body, so a different body under the same key is recognised. */
    bodyHash: p.string().length(64),
    status: p.integer().nullable(),
    response: p.text().nullable(),
    contentType: p.string().length(200).nullable(),
    createdAt: createdAtProperty(),
  },
});
export type IIdempotencyKey = InferEntity<typeof IdempotencyKey>;
