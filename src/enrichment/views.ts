/** A bulk enrichment job as its GET routes show it (CONTRACT §5); webhook events (§9.3) carry the same shape. */
import type { IEnrichmentJob } from '../db/entities/enrichment-job.ts';
import type { BulkStatus, EnrichmentField, StopReason } from '../domain/enrichment.ts';
import { iso } from '../domain/time.ts';

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
