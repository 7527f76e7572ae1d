import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { DECISIONS, type JobWarning, VERIFICATION_METHODS, VERIFICATION_STAGES } from '../../domain/verification.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from './common.ts';
import { List } from './list.ts';
import { Organization } from './organization.ts';

/**
 * One verification of a list. Counts are not stored here: they are aggregated from the job's result
 * rows on every read, so job, progress, estimate and coverage can never disagree.
 */
export const VerificationJob = defineEntity({
  name: 'VerificationJob',
  indexes: [{ properties: ['organization', 'id'] }, { properties: ['list', 'id'] }],
  // Live progress (CONTRACT §9.4): every committed change reaches the API processes streaming the job (job-notifications.ts),
  // naming the stage it leaves the job in, so a stream held back by its progress pace still shows a new stage at once.
  triggers: [
    {
      name: 'verification_job_notify',
      timing: 'after',
      events: ['update'],
      forEach: 'row',
      body: `perform pg_notify('job_events', 'verification:' || new.id || ':' || new.verification_stage); return null;`,
    },
  ],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    list: () => p.manyToOne(List).deleteRule('cascade'),
    verificationMethod: p.enum(VERIFICATION_METHODS),
    verificationStage: p.enum(VERIFICATION_STAGES),
    /** Distinct addresses (case-insensitive) of the list's leads when the job was created. */
    totalEmails: p.integer(),
    /**
     * While the job's addresses are still being written (a list larger than the first range): the last domain `seq`
     * whose addresses are in; null once every address is (and for every job of a smaller list).
     */
    snapshotSeq: p.integer().nullable(),
    /**
     * False from creation until the domains after the first range are counted (the creating request counts them
     * after the workflow has started on the first range; the workflow does, if that request died first).
     */
    domainsCounted: p.boolean().default(true),
    smtpCompletedAt: p.datetime().nullable(),
    userDecision: p.enum(DECISIONS).nullable(),
    decisionMadeAt: p.datetime().nullable(),
    /** With a fill decision: only Catch-All results scored at or below it went to the provider (CONTRACT §12). */
    catchAllMaxScore: p.integer().nullable(),
    completedAt: p.datetime().nullable(),
    /** When the workflow's next greylisting pass is due (SMTP_GREYLIST_SCHEDULE); null outside a wait. */
    deferredRetryAt: p.datetime().nullable(),
    failureReason: p.text().nullable(),
    /** Conditions of the worker's surroundings that kept addresses from a verdict (CONTRACT §10). */
    warnings: p.json<JobWarning[]>().default('[]'),
    /** Set once the job's Valid addresses have taught the domains' template counts (CONTRACT §12). */
    templatesLearnedAt: p.datetime().nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
});
export type IVerificationJob = InferEntity<typeof VerificationJob>;
