/** A scrape job as its GET routes show it (CONTRACT §4); webhook events (§9.3) carry the same shape. */
import { z } from '@hono/zod-openapi';
import type { IScrapeJob } from '../db/entities/scrape-job.ts';
import { type Ref, refId } from '../db/entities/common.ts';
import { SCRAPE_INPUT_TYPES, SCRAPE_JOB_STATUSES } from '../domain/scrape.ts';
import { iso, Timestamp } from '../domain/time.ts';

// The job's items as its detail and download show them, row by row.
export type { ScrapeItemRow } from './repository-items.ts';

export const ScrapeJobSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    status: z.enum(SCRAPE_JOB_STATUSES),
    inputType: z.enum(SCRAPE_INPUT_TYPES),
    totalItems: z.number().int(),
    completedItems: z.number().int(),
    foundItems: z.number().int(),
    failureReason: z.string().nullable().openapi({ description: 'Why the job failed; null unless `failed`' }),
    listId: z.uuid().nullable().openapi({ description: 'The list the first sync created; null before' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    completedAt: Timestamp.nullable().openapi({ description: 'When the job completed or failed' }),
  })
  .openapi('ScrapeJob');
export type ScrapeJobDto = z.infer<typeof ScrapeJobSchema>;

/**
 * The job's fields its answers show: the entity (where the job was just created) or its row as the typed builder
 * reads it (reads build no entity: clients poll them).
 */
export type ScrapeJobFacts = Pick<
  IScrapeJob,
  'id' | 'name' | 'status' | 'inputType' | 'totalItems' | 'completedItems' | 'foundItems' | 'failureReason' | 'createdAt' | 'updatedAt' | 'completedAt'
> & { list?: Ref | null };

export const toScrapeJobDto = (job: ScrapeJobFacts): ScrapeJobDto => ({
  id: job.id,
  name: job.name,
  status: job.status,
  inputType: job.inputType,
  totalItems: job.totalItems,
  completedItems: job.completedItems,
  foundItems: job.foundItems,
  failureReason: job.failureReason ?? null,
  listId: job.list ? refId(job.list) : null,
  createdAt: job.createdAt.toISOString(),
  updatedAt: job.updatedAt.toISOString(),
  completedAt: iso(job.completedAt),
});
