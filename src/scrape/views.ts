/** A scrape job as its GET routes show it (CONTRACT §4); webhook events (§9.3) carry the same shape. */
import type { IScrapeJob } from '../db/entities/scrape-job.ts';
import type { ScrapeInputType, ScrapeJobStatus } from '../domain/scrape.ts';
import { iso } from '../domain/time.ts';

// The job's items as its detail and download show them, row by row.
export type { ScrapeItemRow } from './repository-items.ts';

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
