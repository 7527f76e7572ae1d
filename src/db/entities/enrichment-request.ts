import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty } from './common.ts';
import { Organization } from './organization.ts';

/**
 * The settled outcome of one single enrichment, written in the transaction that charges it: a retried
 * settle activity finds it and answers the same without charging or caching again.
 */
export const EnrichmentRequest = defineEntity({
  name: 'EnrichmentRequest',
  indexes: [{ properties: ['organization', 'id'] }],
  properties: {
    /** The id of the request's workflow (`enrichment-<id>`). */
    id: p.uuid().primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    networkUrl: p.string().length(500),
    creditsUsed: p.integer(),
    result: p.json<Record<string, unknown>>(),
    createdAt: createdAtProperty(),
  },
});
export type IEnrichmentRequest = InferEntity<typeof EnrichmentRequest>;
