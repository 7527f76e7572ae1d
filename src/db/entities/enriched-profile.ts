import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ENRICHMENT_FIELDS } from '../../domain/enrichment.ts';
import { idProperty, updatedAtProperty } from './common.ts';
import { Organization } from './organization.ts';

/**
 * The enrichment cache: verified data an organization has paid for, per profile URL. Within
 * ENRICHMENT_CACHE_DAYS of `paidAt`, every field in `searchedFields` is served from here for 0 credits
 * (null when the waterfall found nothing for it).
 */
export const EnrichedProfile = defineEntity({
  name: 'EnrichedProfile',
  uniques: [{ properties: ['organization', 'networkUrl'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    networkUrl: p.string().length(500),
    firstName: p.string().length(200).nullable(),
    lastName: p.string().length(200).nullable(),
    title: p.string().length(300).nullable(),
    company: p.string().length(300).nullable(),
    workEmail: p.string().length(254).nullable(),
    personalEmail: p.string().length(254).nullable(),
    phone: p.string().length(50).nullable(),
    searchedFields: p.enum(ENRICHMENT_FIELDS).array(),
    paidAt: p.datetime(),
    updatedAt: updatedAtProperty(),
  },
});
export type IEnrichedProfile = InferEntity<typeof EnrichedProfile>;
