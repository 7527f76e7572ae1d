import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { idProperty } from './common.ts';
import { VerificationJob } from './verification-job.ts';

const count = () => p.integer().default(0);

/**
 * One domain of a job: the SMTP stage's unit of work (`seq` numbers them 1..n, largest first, so
 * the workflow hands out ranges instead of lists), the home of its catch-all verdict, and the
 * running counts of its results. The counts are kept by a statement trigger on verification_result
 * (`verification_result_counts`), so every writer moves them in the statement that changes a result
 * and the read routes sum a job's domains instead of scanning its results.
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
    /** Results with their SMTP-stage outcome that do not wait for the provider. */
    processedCount: count(),
    /** Addresses waiting for a later greylisting attempt. */
    deferredCount: count(),
    smtpValidCount: count(),
    smtpInvalidCount: count(),
    smtpCatchAllCount: count(),
    smtpUnknownCount: count(),
    validCount: count(),
    invalidCount: count(),
    catchAllCount: count(),
    unknownCount: count(),
    apiValidCount: count(),
    apiInvalidCount: count(),
    apiCatchAllCount: count(),
    apiUnknownCount: count(),
    lastCheckedAt: p.datetime().nullable(),
  },
});
export type IVerificationDomain = InferEntity<typeof VerificationDomain>;
