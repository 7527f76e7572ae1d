/** A verification job as its GET routes show it (CONTRACT §3); webhook events (§9.3) carry the same shape. */
import type { VerificationJobView } from './repository.ts';

// What the routes' schemas show besides the job: its per-domain statistics and per-address results.
export type { CatchAllBand, DomainStat, ResultRow, VerificationJobView } from './repository.ts';
import { coveragePercentage, type Decision, type JobWarning, microsToDollars, type VerificationMethod, type VerificationStage } from '../domain/verification.ts';
import { iso } from '../domain/time.ts';

export interface VerificationJobDto {
  warnings: JobWarning[];
  id: string;
  listId: string;
  listName: string;
  verificationStage: VerificationStage;
  verificationMethod: VerificationMethod;
  totalEmails: number;
  processedEmails: number;
  /** Addresses waiting for a later greylisting attempt (SMTP_GREYLIST_SCHEDULE). */
  deferredCount: number;
  /** When the next greylisting pass is due; null when nothing is deferred or no pass is scheduled yet. */
  nextRetryAt: string | null;
  smtpValidCount: number;
  smtpInvalidCount: number;
  smtpCatchAllCount: number;
  smtpUnknownCount: number;
  smtpCompletedAt: string | null;
  coveragePercentage: number;
  /** Each address's last result, whichever stage decided it. */
  finalCounts: { valid: number; invalid: number; catchAll: number; unknown: number };
  userDecision: Decision | null;
  catchAllMaxScore: number | null;
  decisionMadeAt: string | null;
  apiVerifiedEmails: number;
  apiCost: number;
  apiValidCount: number;
  apiInvalidCount: number;
  apiCatchAllCount: number;
  apiUnknownCount: number;
  completedAt: string | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

const later = (a: Date, b: Date | null) => (b && b > a ? b : a);

export function toJobDto({ job, listName, counts }: VerificationJobView): VerificationJobDto {
  return {
    id: job.id,
    listId: typeof job.list === 'string' ? job.list : job.list.id,
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
    coveragePercentage: coveragePercentage(counts.final),
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
