import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { estimateCredits, type EnrichmentField } from '../domain/enrichment.ts';
import { JobGoneError, notFound } from '../errors.ts';
import { EnrichmentJob } from '../db/entities/index.ts';
import { kysely, newestFirst } from '../db/kysely.ts';
import type { IEnrichmentJob } from '../db/entities/enrichment-job.ts';

/** The list's lead count and newest lead: the job covers exactly these leads. */
export async function listSnapshot(em: EntityManager, listId: string): Promise<{ totalLeads: number; lastLeadId: string | null }> {
  const leads = kysely(em).selectFrom('lead').where('list', '=', listId);
  const count = await leads.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  const last = await leads.select('id').orderBy('id', 'desc').limit(1).executeTakeFirst();
  return { totalLeads: Number(count.n), lastLeadId: last?.id ?? null };
}

export async function createBulkJob(
  em: EntityManager,
  input: { organizationId: string; listId: string; fields: EnrichmentField[]; totalLeads: number; lastLeadId: string | null },
): Promise<IEnrichmentJob> {
  const job = em.create(EnrichmentJob, {
    organization: input.organizationId,
    list: input.listId,
    status: 'pending',
    fields: input.fields,
    totalLeads: input.totalLeads,
    estimatedCredits: estimateCredits(input.totalLeads, input.fields),
    lastLeadId: input.lastLeadId,
    cursor: null,
    stopReason: null,
    failureReason: null,
    completedAt: null,
  });
  await em.flush();
  return job;
}

/** The organization's job as its row, from the typed builder: reads build no entity (clients poll them). */
export async function getBulkJob(em: EntityManager, organizationId: string, jobId: string) {
  const job = await kysely(em).selectFrom('enrichment_job').selectAll().where('id', '=', jobId).where('organization', '=', organizationId).executeTakeFirst();
  if (!job) throw notFound('Enrichment job');
  return job;
}

/** An organization's bulk jobs, newest first, optionally of one list. */
export async function pageBulkJobs(em: EntityManager, organizationId: string, filter: { listId?: string }, offset: number, limit: number) {
  const kept = kysely(em)
    .selectFrom('enrichment_job')
    .where('organization', '=', organizationId)
    .$if(filter.listId !== undefined, (q) => q.where('list', '=', filter.listId!));
  return newestFirst(kept, offset, limit);
}

export async function deleteBulkJob(em: EntityManager, jobId: string): Promise<void> {
  await em.nativeDelete(EnrichmentJob, { id: jobId });
}

/** What one batch of a bulk job works from: the job's own columns and its organization's balance. */
export interface BulkWork {
  id: string;
  organizationId: string;
  listId: string;
  status: string;
  fields: EnrichmentField[];
  cursor: string | null;
  lastLeadId: string | null;
  creditBalance: number;
}

export async function loadBulkWork(em: EntityManager, jobId: string): Promise<BulkWork> {
  const job = await kysely(em)
    .selectFrom('enrichment_job as j')
    .innerJoin('organization as o', 'o.id', 'j.organization')
    .select(['j.id', 'j.organization as organizationId', 'j.list as listId', 'j.status', 'j.fields', 'j.cursor', 'j.lastLeadId', 'o.creditBalance'])
    .where('j.id', '=', jobId)
    .executeTakeFirst();
  if (!job) throw new JobGoneError('enrichment', jobId);
  return job;
}

/**
 * Moves the cursor from `from` to `to` while the job is processing; false when another run of the same
 * batch already moved it (a batch commits once).
 */
export async function moveBulkCursor(tx: EntityManager, jobId: string, from: string | null, to: string | null): Promise<boolean> {
  const moved = await kysely(tx)
    .updateTable('enrichment_job')
    .set({ cursor: to, updatedAt: sql`now()` })
    .where('id', '=', jobId)
    .where('status', '=', 'processing')
    .where('cursor', 'is not distinct from', from)
    .returning('id')
    .execute();
  return moved.length > 0;
}

/** A committed batch's counts onto the job; `done` completes it, `stopped` names the empty balance. */
export async function recordBulkBatch(
  tx: EntityManager,
  jobId: string,
  batch: { processed: number; succeeded: number; credits: number; done: boolean; stopped: boolean },
): Promise<void> {
  const { processed, succeeded, credits, done, stopped } = batch;
  await kysely(tx)
    .updateTable('enrichment_job')
    .set((eb) => ({
      processedLeads: eb('processedLeads', '+', processed),
      successCount: eb('successCount', '+', succeeded),
      failedCount: eb('failedCount', '+', processed - succeeded),
      creditsUsed: eb('creditsUsed', '+', credits),
      // Every SET expression reads the row as it was: the skipped leads are those before this batch's.
      ...(stopped && { stopReason: 'insufficient_credits' as const, skippedCount: eb(eb('totalLeads', '-', eb.ref('processedLeads')), '-', processed) }),
      ...(done && { status: 'completed' as const, completedAt: sql<Date>`now()` }),
      updatedAt: sql<Date>`now()`,
    }))
    .where('id', '=', jobId)
    .execute();
}

/** The job cannot go on (a provider rejected the key, retries exhausted): failed, with the reason. */
export async function failBulkJob(em: EntityManager, jobId: string, reason: string): Promise<void> {
  const [updated] = await kysely(em)
    .updateTable('enrichment_job')
    .set({ status: 'failed', failureReason: reason.slice(0, 2000), completedAt: sql`now()`, updatedAt: sql`now()` })
    .where('id', '=', jobId)
    .where('status', 'in', ['pending', 'processing'])
    .execute();
  // A job already closed keeps its ending; one that no longer exists is gone, as for every job kind.
  if (updated!.numUpdatedRows === 0n && (await em.count(EnrichmentJob, { id: jobId })) === 0) throw new JobGoneError('enrichment', jobId);
}
