import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../db/kysely.ts';

/**
 * `pending` → `processing` when a job's first batch starts, for the kinds whose status says so (scrape, bulk
 * enrichment); any other status stays (a scrape job paused before it started stays paused).
 */
export async function markJobStarted(em: EntityManager, table: 'scrape_job' | 'enrichment_job', jobId: string): Promise<void> {
  await kysely(em)
    .updateTable(table)
    .set({ status: 'processing', updatedAt: sql`now()` })
    .where('id', '=', jobId)
    .where('status', '=', 'pending')
    .execute();
}
