import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { SCRAPE_ITEM_STATUSES } from '../../domain/scrape.ts';
import { idProperty } from './common.ts';
import { ScrapeJob } from './scrape-job.ts';

/** One data row of an uploaded scrape file; `(job, rowNumber)` orders reads, downloads and cursors. */
export const ScrapeItem = defineEntity({
  name: 'ScrapeItem',
  uniques: [{ properties: ['job', 'rowNumber'] }],
  properties: {
    id: idProperty(),
    job: () => p.manyToOne(ScrapeJob).deleteRule('cascade'),
    /** 1-based position among the file's data rows (blank lines are not rows). */
    rowNumber: p.integer(),
    status: p.enum(SCRAPE_ITEM_STATUSES),
    company: p.string().length(300).nullable(),
    role: p.string().length(300).nullable(),
    firstName: p.string().length(200).nullable(),
    lastName: p.string().length(200).nullable(),
    domain: p.string().length(253).nullable(),
    networkUrl: p.string().length(500).nullable(),
    error: p.string().length(500).nullable(),
    processedAt: p.datetime().nullable(),
    /** Set when a sync turned this (found) item into a lead. */
    syncedAt: p.datetime().nullable(),
  },
});
export type IScrapeItem = InferEntity<typeof ScrapeItem>;
