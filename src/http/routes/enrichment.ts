import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { z } from '@hono/zod-openapi';
import type { bulkEnrichmentWorkflow, singleEnrichmentWorkflow } from '../../../workflows/enrichment.ts';
import { newId } from '../../db/entities/common.ts';
import { getBalance } from '../../db/repos/credit-ledger.ts';
import { createBulkJob, deleteBulkJob, getBulkJob, listSnapshot } from '../../db/repos/enrichment-jobs.ts';
import { getList } from '../../db/repos/lists.ts';
import { log } from '../../log.ts';
import { jobSearchAttributes, workflowId } from '../../temporal/shared.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../errors.ts';
import { organizationId } from '../middleware/session.ts';
import { createRouter, sessionRoute } from '../router.ts';
import { uuidParam } from '../schemas/common.ts';
import {
  BulkCreatedSchema,
  BulkEnrichRequestSchema,
  BulkJobSchema,
  EnrichRequestSchema,
  EnrichResultSchema,
  toBulkJobDto,
} from '../schemas/enrichment.ts';
import type { Context } from 'hono';
import type { EntityManager } from '@mikro-orm/postgresql';

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });

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

export const enrichmentRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/enrich',
      tags: ['enrichment'],
      summary: 'Enrich one profile (waterfall over the organization’s providers)',
      description:
        'Charges 1 credit per verified work or personal email and 2 per valid phone; nothing when nothing is found. ' +
        'A profile the organization paid for within ENRICHMENT_CACHE_DAYS is answered from the cache for 0 credits.',
      request: { body: { required: true, ...json(EnrichRequestSchema) } },
      responses: { 200: { description: 'The enriched profile', ...json(EnrichResultSchema) } },
      errors: ['validation_error', 'insufficient_credits', 'unprocessable'],
    }),
    async (c) => {
      const { networkUrl } = c.req.valid('json');
      const orgId = organizationId(c);
      await requireCredits(c.var.em, orgId);
      const { temporal, config } = c.var.deps;
      const requestId = newId();
      try {
        const result = await temporal.workflow.execute<typeof singleEnrichmentWorkflow>('singleEnrichmentWorkflow', {
          taskQueue: config.TEMPORAL_TASK_QUEUE,
          workflowId: workflowId('enrichment', requestId),
          args: [{ requestId, organizationId: orgId, networkUrl }],
          typedSearchAttributes: jobSearchAttributes('enrichment', orgId),
          workflowExecutionTimeout: SINGLE_ENRICHMENT_TIMEOUT,
        });
        return c.json(result, 200);
      } catch (error) {
        throw enrichmentFailure(c, error);
      }
    },
  )
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/bulk',
      tags: ['enrichment'],
      summary: 'Enrich every lead of a list',
      request: { body: { required: true, ...json(BulkEnrichRequestSchema) } },
      responses: { 201: { description: 'Job created', ...json(BulkCreatedSchema) } },
      errors: ['validation_error', 'not_found', 'insufficient_credits', 'unprocessable'],
    }),
    async (c) => {
      const { em, deps } = c.var;
      const { listId, fields } = c.req.valid('json');
      const orgId = organizationId(c);
      const list = await getList(em, orgId, listId);
      await requireCredits(em, orgId);
      const snapshot = await listSnapshot(em, list.id);
      if (snapshot.totalLeads === 0) throw new ApiError('unprocessable', 'The list has no leads', { reason: 'empty_list' });
      const job = await createBulkJob(em, { organizationId: orgId, listId: list.id, fields, ...snapshot });
      try {
        await deps.temporal.workflow.start<typeof bulkEnrichmentWorkflow>('bulkEnrichmentWorkflow', {
          taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
          workflowId: workflowId('enrichment', job.id),
          args: [{ jobId: job.id }],
          typedSearchAttributes: jobSearchAttributes('enrichment', orgId, list.id),
        });
      } catch (error) {
        await deleteBulkJob(em, job);
        throw error;
      }
      return c.json({ jobId: job.id, status: 'pending' as const, totalLeads: job.totalLeads, estimatedCredits: job.estimatedCredits }, 201);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/bulk/{jobId}',
      tags: ['enrichment'],
      summary: 'A bulk enrichment job with live counts',
      request: { params: uuidParam('jobId') },
      responses: { 200: { description: 'The job', ...json(BulkJobSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const job = await getBulkJob(c.var.em, organizationId(c), c.req.valid('param').jobId);
      return c.json(toBulkJobDto(job), 200);
    },
  );
