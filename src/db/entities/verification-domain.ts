import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { idProperty } from './common.ts';
import { VerificationJob } from './verification-job.ts';

/**
 * One domain of a job: the SMTP stage's unit of work (`seq` numbers them 1..n, largest first, so
 * the workflow hands out ranges instead of lists) and the home of its catch-all verdict.
 */
export const VerificationDomain = defineEntity({
  name: 'VerificationDomain',
  uniques: [{ properties: ['job', 'domain'] }, { properties: ['job', 'seq'] }],
  properties: {
    id: idProperty(),
    job: () => p.manyToOne(VerificationJob).deleteRule('cascade'),
    domain: p.string().length(253),
    seq: p.integer(),
    emailCount: p.integer(),
    /** null while undetermined (or when no server answered the random address). */
    isCatchAll: p.boolean().nullable(),
    mxHost: p.string().length(253).nullable(),
    smtpDoneAt: p.datetime().nullable(),
  },
});
export type IVerificationDomain = InferEntity<typeof VerificationDomain>;
