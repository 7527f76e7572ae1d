/**
 * Bodies of the enrichment routes, shared by `/api/enrichment` (session) and `/api/external` (API key):
 * each route file declares its own contract and auth, then calls one of these.
 */
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Context } from 'hono';
import type { bulkEnrichmentWorkflow, singleEnrichmentWorkflow } from '../../workflows/enrichment.ts';
import { newId } from '../db/entities/common.ts';
import { getBalance } from '../db/repos/credit-ledger.ts';
import { createBulkJob, deleteBulkJob, getBulkJob, listSnapshot, pageBulkJobs } from './repository.ts';
import { getList } from '../db/repos/lists.ts';
import { log } from '../log.ts';
import { jobSearchAttributes, workflowId } from '../temporal/shared.ts';
import { startJobWorkflow } from '../jobs/start.ts';
import type { AppEnv } from '../http/env.ts';
import { streamJob } from '../http/job-stream.ts';
import { ApiError } from '../errors.ts';
import { organizationId } from '../http/middleware/session.ts';
import { toBulkJobDto } from '../jobs/views.ts';
import type { BulkEnrichRequestSchema } from '../http/schemas/enrichment.ts';
import { offsetOf, paginated, type PageQuery } from '../http/schemas/common.ts';
import type { z } from '@hono/zod-openapi';
import { requestEm } from '../http/middleware/request-context.ts';

/** A single enrichment waits this long for its workflow; the activities' own retries fit well within it. */
const SINGLE_ENRICHMENT_TIMEOUT = '2 minutes';

async function requireCredits(em: EntityManager, orgId: string): Promise<void> {
  const balance = await getBalance(em, orgId);
  if (balance <= 0) {
    throw new ApiError('insufficient_credits', 'The credit balance is 0: add credits to enrich', { balance });
  }
}

/** Why a single enrichment workflow failed, as the contract's error: rejected credentials are the organization's to fix. */
function enrichmentFailure(c: Context<AppEnv>, error: unknown): unknown {
  if (!(error instanceof WorkflowFailedError)) return error;
  let cause: unknown = error.cause;
  while (cause instanceof Error && !(cause instanceof ApplicationFailure) && cause.cause) cause = cause.cause;
  if (cause instanceof ApplicationFailure && (cause.type === 'ProviderAuthError' || cause.type === 'SecretDecryptionError')) {
    return new ApiError('unprocessable', `An enrichment provider cannot be used: ${cause.message}`, { reason: 'provider_credentials' });
  }
  log.warn('single enrichment failed', { requestId: c.get('requestId'), error: cause instanceof Error ? cause.message : String(cause) });
  return new ApiError('unavailable', 'The enrichment providers are unavailable; retry later');
}

export async function enrichOne(c: Context<AppEnv>, networkUrl: string) {
  const orgId = organizationId(c);
  await requireCredits(requestEm(c), orgId);
  const { temporal, config } = c.var.deps;
  const requestId = newId();
  try {
    return await temporal.workflow.execute<typeof singleEnrichmentWorkflow>('singleEnrichmentWorkflow', {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: workflowId('enrichment', requestId),
      args: [{ requestId, organizationId: orgId, networkUrl }],
      typedSearchAttributes: jobSearchAttributes('enrichment', orgId),
      workflowExecutionTimeout: SINGLE_ENRICHMENT_TIMEOUT,
    });
  } catch (error) {
    throw enrichmentFailure(c, error);
  }
}

export async function startBulkEnrichment(c: Context<AppEnv>, input: z.infer<typeof BulkEnrichRequestSchema>) {
  const { deps } = c.var;
  const em = requestEm(c);
  const orgId = organizationId(c);
  const list = await getList(em, orgId, input.listId);
  await requireCredits(em, orgId);
  const snapshot = await listSnapshot(em, list.id);
  if (snapshot.totalLeads === 0) throw new ApiError('unprocessable', 'The list has no leads', { reason: 'empty_list' });
  const job = await createBulkJob(em, { organizationId: orgId, listId: list.id, fields: input.fields, ...snapshot });
  await startJobWorkflow<typeof bulkEnrichmentWorkflow>(
    deps.temporal,
    deps.config.TEMPORAL_TASK_QUEUE,
    { kind: 'enrichment', jobId: job.id, organizationId: orgId, listId: list.id, workflowType: 'bulkEnrichmentWorkflow', args: [{ jobId: job.id }] },
    () => deleteBulkJob(em.fork(), job.id),
  );
  return { jobId: job.id, status: 'pending' as const, totalLeads: job.totalLeads, estimatedCredits: job.estimatedCredits };
}

export async function pageBulkEnrichmentDtos(c: Context<AppEnv>, query: PageQuery & { listId?: string }) {
  const { rows, total } = await pageBulkJobs(requestEm(c), organizationId(c), query, offsetOf(query), query.limit);
  return paginated(rows.map(toBulkJobDto), total, query);
}

export async function bulkEnrichmentDto(c: Context<AppEnv>, jobId: string) {
  return toBulkJobDto(await getBulkJob(requestEm(c), organizationId(c), jobId));
}

/** `GET …/bulk/{jobId}/events`: the bulk job live over SSE, each read from a fresh EntityManager. */
export async function streamBulkEnrichment(c: Context<AppEnv>, jobId: string) {
  const orgId = organizationId(c);
  return streamJob(c, `enrichment:${jobId}`, async () => {
    const dto = toBulkJobDto(await getBulkJob(requestEm(c).fork(), orgId, jobId));
    return { stage: dto.status, terminal: dto.status === 'completed' || dto.status === 'failed', data: dto };
  });
}
