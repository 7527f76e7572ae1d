/** A verification job as its GET routes show it (CONTRACT §3); webhook events (§9.3) carry the same shape. */
import { z } from '@hono/zod-openapi';
import type { IVerificationJob } from '../db/entities/verification-job.ts';
import { type Ref, refId } from '../db/entities/common.ts';
import type { EmailResult } from '../domain/lead.ts';
import type { MxProvider } from '../domain/mx-provider.ts';
import type { CatchAllReason, MailboxSignal } from '../domain/catch-all.ts';
import {
  type FinalCounts,
  type ResultSource,
  coveragePercentage,
  DECISIONS,
  JOB_WARNING_CODES,
  microsToDollars,
  VERIFICATION_METHODS,
  VERIFICATION_STAGES,
} from '../domain/verification.ts';
import { iso, Timestamp } from '../domain/time.ts';

// What the job's reads produce (repository.ts) and the routes show: the job with its counts, its Catch-All results
// by score and its per-address results.
/** Everything the job's read routes show that is aggregated from its result and spend rows. */
export interface VerificationJobCounts {
  processed: number;
  /** Addresses waiting for a later greylisting attempt. */
  deferred: number;
  smtp: Record<EmailResult, number>;
  final: FinalCounts;
  api: Record<EmailResult, number> & { verified: number; costMicros: number };
  lastCheckedAt: Date | null;
}

/**
 * The job's own fields an answer shows: the entity (where the job was just created or changed) or its row as the
 * typed builder reads it (the job's reads, polled by clients every few seconds, build no entity).
 */
export type JobFacts = Pick<
  IVerificationJob,
  | 'id'
  | 'verificationStage'
  | 'verificationMethod'
  | 'totalEmails'
  | 'deferredRetryAt'
  | 'smtpCompletedAt'
  | 'userDecision'
  | 'catchAllMaxScore'
  | 'decisionMadeAt'
  | 'completedAt'
  | 'failureReason'
  | 'warnings'
  | 'createdAt'
  | 'updatedAt'
> & { list: Ref };

export interface VerificationJobView {
  job: JobFacts;
  listName: string;
  counts: VerificationJobCounts;
}

export interface CatchAllBand {
  score: number;
  count: number;
}

export interface ResultRow {
  email: string;
  result: EmailResult | null;
  source: ResultSource | null;
  reason: string | null;
  domain: string;
  mxHost: string | null;
  mxProvider: MxProvider | null;
  mailboxProvider: MxProvider | null;
  mailboxProviderSignals: MailboxSignal[];
  /** Only on a Catch-All result (CONTRACT §12); null and [] on every other. */
  catchAllScore: number | null;
  catchAllReasons: CatchAllReason[];
  /** The directory's answer when it decided the address. */
  directory: { ifExistsResult: number } | null;
  smtpCode: number | null;
  enhancedCode: string | null;
  attempts: number;
  checkedAt: Date | null;
}

export const count = z.number().int();
export const dollars = z
  .number()
  .openapi({ description: 'US dollars, at most 6 decimals (computed in micro-dollars)', example: 0.0015 });

export const VerificationJobSchema = z
  .object({
    id: z.uuid(),
    listId: z.uuid(),
    listName: z.string(),
    verificationStage: z.enum(VERIFICATION_STAGES),
    verificationMethod: z.enum(VERIFICATION_METHODS),
    totalEmails: count,
    processedEmails: count.openapi({ description: 'Addresses whose work in the current stage is done' }),
    deferredCount: count.openapi({
      description: 'Addresses waiting for a later attempt after a 4xx (greylisting, SMTP_GREYLIST_SCHEDULE)',
    }),
    nextRetryAt: Timestamp.nullable().openapi({
      description:
        'When the next attempt of the deferred addresses is due; null when none is deferred, and while the first pass or a later attempt is under way',
    }),
    smtpValidCount: count,
    smtpInvalidCount: count,
    smtpCatchAllCount: count,
    smtpUnknownCount: count,
    smtpCompletedAt: Timestamp.nullable(),
    coveragePercentage: z
      .number()
      .openapi({ description: '(Valid + Invalid) / totalEmails × 100 over final results, 2 decimals' }),
    userDecision: z.enum(DECISIONS).nullable(),
    catchAllMaxScore: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'The score bound of the decision: only Catch-All results scored at or below it went to the provider' }),
    finalCounts: z
      .object({ valid: count, invalid: count, catchAll: count, unknown: count })
      .openapi({ description: "Each address's last result, whichever stage (mail server or provider) decided it" }),
    decisionMadeAt: Timestamp.nullable(),
    apiVerifiedEmails: count,
    apiCost: dollars,
    apiValidCount: count,
    apiInvalidCount: count,
    apiCatchAllCount: count,
    apiUnknownCount: count,
    completedAt: Timestamp.nullable(),
    failureReason: z.string().nullable().openapi({ description: 'Why a `failed` job stopped' }),
    warnings: z
      .array(z.object({ code: z.enum(JOB_WARNING_CODES), message: z.string() }))
      .openapi({ description: 'Conditions of the verifying worker that kept addresses from a verdict' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('VerificationJob');
export type VerificationJobDto = z.infer<typeof VerificationJobSchema>;

/** A domain's final results in the job, as its progress shows them. */
export const DomainStatSchema = z
  .object({
    domain: z.string(),
    totalEmails: count,
    validCount: count,
    invalidCount: count,
    catchAllCount: count,
    unknownCount: count,
    isCatchAll: z.boolean().nullable(),
  })
  .openapi('VerificationDomainStats');
export type DomainStat = z.infer<typeof DomainStatSchema>;

const later = (a: Date, b: Date | null) => (b && b > a ? b : a);

export function toJobDto({ job, listName, counts }: VerificationJobView): VerificationJobDto {
  return {
    id: job.id,
    listId: refId(job.list),
    listName,
    verificationStage: job.verificationStage,
    verificationMethod: job.verificationMethod,
    totalEmails: job.totalEmails,
    processedEmails: counts.processed,
    deferredCount: counts.deferred,
    nextRetryAt: counts.deferred > 0 && job.verificationStage === 'smtp_verifying' ? iso(job.deferredRetryAt) : null,
    smtpValidCount: counts.smtp.Valid,
    smtpInvalidCount: counts.smtp.Invalid,
    smtpCatchAllCount: counts.smtp['Catch-All'],
    smtpUnknownCount: counts.smtp.Unknown,
    smtpCompletedAt: iso(job.smtpCompletedAt),
    coveragePercentage: coveragePercentage(counts.final, job.totalEmails),
    finalCounts: {
      valid: counts.final.valid,
      invalid: counts.final.invalid,
      catchAll: counts.final.catchAll,
      unknown: counts.final.unknown,
    },
    userDecision: job.userDecision ?? null,
    catchAllMaxScore: job.catchAllMaxScore ?? null,
    decisionMadeAt: iso(job.decisionMadeAt),
    apiVerifiedEmails: counts.api.verified,
    apiCost: microsToDollars(counts.api.costMicros),
    apiValidCount: counts.api.Valid,
    apiInvalidCount: counts.api.Invalid,
    apiCatchAllCount: counts.api['Catch-All'],
    apiUnknownCount: counts.api.Unknown,
    completedAt: iso(job.completedAt),
    failureReason: job.failureReason ?? null,
    warnings: job.warnings ?? [],
    createdAt: job.createdAt.toISOString(),
    // Results land continuously while the job row itself changes only between stages.
    updatedAt: later(job.updatedAt, counts.lastCheckedAt).toISOString(),
  };
}
