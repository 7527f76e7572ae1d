import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';
import { VerificationJob } from './verification-job.ts';

/**
 * Provider spend, one row per address bought. The unique (job, email) key is what makes a retried or
 * repeated batch record each address at most once.
 */
export const VerificationSpend = defineEntity({
  name: 'VerificationSpend',
  uniques: [{ properties: ['job', 'email'] }],
  indexes: [{ properties: ['organization', 'id'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    // Spend outlives a deleted list (and its jobs): the organization paid for it all the same.
    job: () => p.manyToOne(VerificationJob).nullable().deleteRule('set null'),
    email: p.string().length(254),
    provider: p.string().length(50),
    amountMicros: p.integer(),
    createdAt: createdAtProperty(),
  },
});
export type IVerificationSpend = InferEntity<typeof VerificationSpend>;
