/**
 * Jobs as their GET routes show them (CONTRACT §3–§5), below the HTTP layer: the routes answer with these, and
 * webhook events (§9.3) carry the same shape, so an event's `data.job` never drifts from the API.
 */
import type { IEnrichmentJob } from '../db/entities/enrichment-job.ts';
import type { IScrapeJob } from '../db/entities/scrape-job.ts';
import type { VerificationJobView } from '../verification/repository.ts';
import type { BulkStatus, EnrichmentField, StopReason } from '../domain/enrichment.ts';
import type { ScrapeInputType, ScrapeJobStatus } from '../domain/scrape.ts';
import { coveragePercentage, type Decision, type JobWarning, microsToDollars, type VerificationMethod, type VerificationStage } from '../domain/verification.ts';

export const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

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
  smtpValidCount: number;
  smtpInvalidCount: number;
  smtpCatchAllCount: number;
  smtpUnknownCount: number;
  smtpCompletedAt: string | null;
  coveragePercentage: number;
  userDecision: Decision | null;
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
    smtpValidCount: counts.smtp.Valid,
    smtpInvalidCount: counts.smtp.Invalid,
    smtpCatchAllCount: counts.smtp['Catch-All'],
    smtpUnknownCount: counts.smtp.Unknown,
    smtpCompletedAt: iso(job.smtpCompletedAt),
    coveragePercentage: coveragePercentage(counts.final),
    userDecision: job.userDecision ?? null,
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

export interface ScrapeJobDto {
  id: string;
  name: string;
  status: ScrapeJobStatus;
  inputType: ScrapeInputType;
  totalItems: number;
  completedItems: number;
  foundItems: number;
  failureReason: string | null;
  listId: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export const toScrapeJobDto = (job: IScrapeJob): ScrapeJobDto => ({
  id: job.id,
  name: job.name,
  status: job.status,
  inputType: job.inputType,
  totalItems: job.totalItems,
  completedItems: job.completedItems,
  foundItems: job.foundItems,
  failureReason: job.failureReason ?? null,
  listId: job.list?.id ?? null,
  createdAt: job.createdAt.toISOString(),
  updatedAt: job.updatedAt.toISOString(),
  completedAt: iso(job.completedAt),
});

export interface BulkJobDto {
  jobId: string;
  listId: string;
  status: BulkStatus;
  fields: EnrichmentField[];
  totalLeads: number;
  processedLeads: number;
  successCount: number;
  failedCount: number;
  skippedCount: number;
  creditsUsed: number;
  estimatedCredits: number;
  stopReason: StopReason | null;
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export const toBulkJobDto = (job: IEnrichmentJob): BulkJobDto => ({
  jobId: job.id,
  listId: job.list.id,
  status: job.status,
  fields: job.fields,
  totalLeads: job.totalLeads,
  processedLeads: job.processedLeads,
  successCount: job.successCount,
  failedCount: job.failedCount,
  skippedCount: job.skippedCount,
  creditsUsed: job.creditsUsed,
  estimatedCredits: job.estimatedCredits,
  stopReason: job.stopReason ?? null,
  failureReason: job.failureReason ?? null,
  createdAt: job.createdAt.toISOString(),
  updatedAt: job.updatedAt.toISOString(),
  completedAt: iso(job.completedAt),
});
