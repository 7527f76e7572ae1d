/** A bulk enrichment job as its GET routes show it (CONTRACT §5); webhook events (§9.3) carry the same shape. */
import { z } from '@hono/zod-openapi';
import type { IEnrichmentJob } from '../db/entities/enrichment-job.ts';
import { type Ref, refId } from '../db/entities/common.ts';
import { BULK_STATUSES, ENRICHMENT_FIELDS, STOP_REASONS } from '../domain/enrichment.ts';
import { iso, Timestamp } from '../domain/time.ts';

export const EnrichmentFieldSchema = z.enum(ENRICHMENT_FIELDS);

export const BulkJobSchema = z
  .object({
    jobId: z.uuid(),
    listId: z.uuid(),
    status: z.enum(BULK_STATUSES),
    fields: z.array(EnrichmentFieldSchema),
    totalLeads: z.number().int(),
    processedLeads: z.number().int(),
    successCount: z.number().int().openapi({ description: 'Leads that received at least one requested field' }),
    failedCount: z.number().int(),
    skippedCount: z.number().int().openapi({ description: 'Leads not processed because credits ran out' }),
    creditsUsed: z.number().int(),
    estimatedCredits: z.number().int(),
    stopReason: z.enum(STOP_REASONS).nullable(),
    failureReason: z.string().nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: Timestamp.nullable(),
  })
  .openapi('BulkEnrichmentJob');
export type BulkJobDto = z.infer<typeof BulkJobSchema>;

/**
 * The job's fields its answers show: the entity (where the job was just created) or its row as the typed builder
 * reads it (reads build no entity: clients poll them).
 */
export type BulkJobFacts = Pick<
  IEnrichmentJob,
  | 'id'
  | 'status'
  | 'fields'
  | 'totalLeads'
  | 'processedLeads'
  | 'successCount'
  | 'failedCount'
  | 'skippedCount'
  | 'creditsUsed'
  | 'estimatedCredits'
  | 'stopReason'
  | 'failureReason'
  | 'createdAt'
  | 'updatedAt'
  | 'completedAt'
> & { list: Ref };

export const toBulkJobDto = (job: BulkJobFacts): BulkJobDto => ({
  jobId: job.id,
  listId: refId(job.list),
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
