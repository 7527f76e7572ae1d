import type { EntityManager } from '@mikro-orm/postgresql';
import { estimateCredits, type EnrichmentField } from '../../domain/enrichment.ts';
import { JobGoneError, notFound } from '../../errors.ts';
import { EnrichmentJob } from '../entities/index.ts';
import type { IEnrichmentJob } from '../entities/enrichment-job.ts';

/** The list's lead count and newest lead: the job covers exactly these leads. */
export async function listSnapshot(em: EntityManager, listId: string): Promise<{ totalLeads: number; lastLeadId: string | null }> {
  const [count] = await em.execute<Array<{ n: string }>>(`select count(*) as n from lead where list_id = ?`, [listId]);
  const [last] = await em.execute<Array<{ id: string }>>(`select id from lead where list_id = ? order by id desc limit 1`, [listId]);
  return { totalLeads: Number(count?.n ?? 0), lastLeadId: last?.id ?? null };
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

export async function getBulkJob(em: EntityManager, organizationId: string, jobId: string): Promise<IEnrichmentJob> {
  const job = await em.findOne(EnrichmentJob, { id: jobId, organization: organizationId });
  if (!job) throw notFound('Enrichment job');
  return job;
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
  const [row] = await em.execute<
    Array<{ id: string; organization_id: string; list_id: string; status: string; fields: string[] | string; cursor: string | null; last_lead_id: string | null; credit_balance: string | number }>
  >(
    `select j.id, j.organization_id, j.list_id, j.status, j.fields, j.cursor, j.last_lead_id, o.credit_balance
     from enrichment_job j join organization o on o.id = j.organization_id where j.id = ?`,
    [jobId],
  );
  if (!row) throw new JobGoneError('enrichment', jobId);
  // The driver hands text[] back as an array, or as its literal when the column type is not registered.
  const fields = Array.isArray(row.fields) ? row.fields : row.fields.replace(/^\{|\}$/g, '').split(',').filter(Boolean);
  return {
    id: row.id,
    organizationId: row.organization_id,
    listId: row.list_id,
    status: row.status,
    fields: fields as EnrichmentField[],
    cursor: row.cursor,
    lastLeadId: row.last_lead_id,
    creditBalance: Number(row.credit_balance),
  };
}

/**
 * Moves the cursor from `from` to `to` while the job is processing; false when another run of the same
 * batch already moved it (a batch commits once).
 */
export async function moveBulkCursor(tx: EntityManager, jobId: string, from: string | null, to: string | null): Promise<boolean> {
  const moved = await tx.execute(
    `update enrichment_job set cursor = ?, updated_at = now() where id = ? and status = 'processing' and cursor is not distinct from ? returning id`,
    [to, jobId, from],
  );
  return moved.length > 0;
}

/** A committed batch's counts onto the job; `done` completes it, `stopped` names the empty balance. */
export async function recordBulkBatch(
  tx: EntityManager,
  jobId: string,
  batch: { processed: number; succeeded: number; credits: number; done: boolean; stopped: boolean },
): Promise<void> {
  const { processed, succeeded, credits, done, stopped } = batch;
  await tx.execute(
    `update enrichment_job set
       processed_leads = processed_leads + ?, success_count = success_count + ?, failed_count = failed_count + ?,
       credits_used = credits_used + ?,
       status = case when ? then 'completed' else status end,
       stop_reason = case when ? then 'insufficient_credits' else stop_reason end,
       skipped_count = case when ? then total_leads - processed_leads - ? else skipped_count end,
       completed_at = case when ? then now() else completed_at end,
       updated_at = now()
     where id = ?`,
    [processed, succeeded, processed - succeeded, credits, done, stopped, stopped, processed, done, jobId],
  );
}

/** pending → processing (the workflow's first step). */
export async function beginBulkJob(em: EntityManager, jobId: string): Promise<void> {
  await em.execute(`update enrichment_job set status = 'processing', updated_at = now() where id = ? and status = 'pending'`, [jobId]);
}

/** The job cannot go on (a provider rejected the key, retries exhausted): failed, with the reason. */
export async function failBulkJob(em: EntityManager, jobId: string, reason: string): Promise<void> {
  await em.execute(
    `update enrichment_job set status = 'failed', failure_reason = ?, completed_at = now(), updated_at = now()
     where id = ? and status in ('pending', 'processing')`,
    [reason.slice(0, 2000), jobId],
  );
}
