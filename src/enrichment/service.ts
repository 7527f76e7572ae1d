/**
 * The enrichment application service: what `/api/enrichment` (session) and `/api/external` (API key) do, with plain
 * arguments. Each route file declares its own contract and auth, then calls one of these.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../db/entities/common.ts';
import { creditBalance } from '../accounts/credits.ts';
import { getList } from '../db/repos/lists.ts';
import type { EnrichmentField } from '../domain/enrichment.ts';
import { ApiError } from '../errors.ts';
import type { JobContext } from '../jobs/context.ts';
import { startWorkflow } from '../jobs/start.ts';
import { type JobView, liveView } from '../jobs/views.ts';
import { log } from '../log.ts';
import { createBulkJob, deleteBulkJob, getBulkJob, listSnapshot, pageBulkJobs } from './repository.ts';
import { type SingleEnrichmentResult, bulkEnrichmentWorkflowType, singleEnrichmentWorkflowType } from './messages.ts';
import { type BulkJobDto, toBulkJobDto } from './views.ts';

/** A single enrichment waits this long for its workflow; the activities' own retries fit well within it. */
const SINGLE_ENRICHMENT_TIMEOUT = '2 minutes';

async function requireCredits(em: EntityManager, orgId: string): Promise<void> {
  const balance = await creditBalance(em, orgId);
  if (balance <= 0) {
    throw new ApiError('insufficient_credits', 'The credit balance is 0: add credits to enrich', { balance });
  }
}

/** Why a single enrichment workflow failed, as the contract's error: rejected credentials are the organization's to fix. */
function enrichmentFailure(error: unknown): unknown {
  if (!(error instanceof WorkflowFailedError)) return error;
  let cause: unknown = error.cause;
  while (cause instanceof Error && !(cause instanceof ApplicationFailure) && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure && (cause.type === 'ProviderAuthError' || cause.type === 'SecretDecryptionError')) {
    return new ApiError('unprocessable', `An enrichment provider cannot be used: ${cause.message}`, { reason: 'provider_credentials' });
  }
  log.warn('single enrichment failed', { error: cause instanceof Error ? cause.message : String(cause) });
  return new ApiError('unavailable', 'The enrichment providers are unavailable; retry later');
}

/** One profile, answered when its workflow has looked it up and charged for it. */
export async function enrichOne(ctx: JobContext, networkUrl: string): Promise<SingleEnrichmentResult> {
  await requireCredits(ctx.em, ctx.organizationId);
  const requestId = newId();
  try {
    const handle = await startWorkflow(ctx, {
      kind: 'enrichment',
      id: requestId,
      organizationId: ctx.organizationId,
      workflow: singleEnrichmentWorkflowType,
      args: [{ requestId, organizationId: ctx.organizationId, networkUrl }],
      executionTimeout: SINGLE_ENRICHMENT_TIMEOUT,
    });
    return await handle.result();
  } catch (error) {
    throw enrichmentFailure(error);
  }
}

/** Creates the bulk job over the list's leads as they are now and starts its workflow; one that cannot start takes its job with it. */
export async function startBulkEnrichment(ctx: JobContext, input: { listId: string; fields: EnrichmentField[] }) {
  const { em, organizationId } = ctx;
  const list = await getList(em, organizationId, input.listId);
  await requireCredits(em, organizationId);
  const snapshot = await listSnapshot(em, list.id);
  if (snapshot.totalLeads === 0) throw new ApiError('unprocessable', 'The list has no leads', { reason: 'empty_list' });
  const job = await createBulkJob(em, { organizationId, listId: list.id, fields: input.fields, ...snapshot });
  await startWorkflow(
    ctx,
    { kind: 'enrichment', id: job.id, organizationId, listId: list.id, workflow: bulkEnrichmentWorkflowType, args: [{ jobId: job.id }] },
    () => deleteBulkJob(em.fork(), job.id),
  );
  return { jobId: job.id, status: 'pending' as const, totalLeads: job.totalLeads, estimatedCredits: job.estimatedCredits };
}

export async function pageBulkEnrichmentDtos(ctx: JobContext, query: { listId?: string }, offset: number, limit: number) {
  const { rows, total } = await pageBulkJobs(ctx.em, ctx.organizationId, query, offset, limit);
  return { rows: rows.map(toBulkJobDto), total };
}

export async function bulkEnrichmentJob(ctx: JobContext, jobId: string): Promise<BulkJobDto> {
  return toBulkJobDto(await getBulkJob(ctx.em, ctx.organizationId, jobId));
}

/** The bulk job as its live stream shows it, read from a fresh EntityManager each time. */
export async function bulkEnrichmentLive(ctx: JobContext, jobId: string): Promise<JobView> {
  const dto = toBulkJobDto(await getBulkJob(ctx.em.fork(), ctx.organizationId, jobId));
  return liveView(dto.status, dto);
}
