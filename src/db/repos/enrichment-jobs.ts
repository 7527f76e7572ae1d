import type { EntityManager } from '@mikro-orm/postgresql';
import { estimateCredits, type EnrichmentField } from '../../domain/enrichment.ts';
import { notFound } from '../../errors.ts';
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

export async function deleteBulkJob(em: EntityManager, job: IEnrichmentJob): Promise<void> {
  await em.nativeDelete(EnrichmentJob, { id: job.id });
}
