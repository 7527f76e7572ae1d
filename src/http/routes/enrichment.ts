import { z } from '@hono/zod-openapi';
import { bulkEnrichmentJob, bulkEnrichmentLive, enrichOne, pageBulkEnrichmentDtos, startBulkEnrichment } from '../../enrichment/service.ts';
import { BulkJobSchema } from '../../enrichment/views.ts';
import { streamJob } from '../job-stream.ts';
import { findEmailRoutesFor } from './find-email.ts';
import { jobContext } from '../middleware/request-context.ts';
import { type Audience, createRouter, sessionAudience, sessionRoute } from '../router.ts';
import { json, offsetOf, PageQuerySchema, pageOf, paginated, uuidParam } from '../schemas/common.ts';
import {
  BulkCreatedSchema,
  BulkEnrichRequestSchema,
  EnrichRequestSchema,
  EnrichResultSchema,
} from '../schemas/enrichment.ts';

/** `POST …/enrich`: one profile, for the dashboard (`/api/enrichment`) and integrations (`/api/external`). */
export const enrichOneRoutesFor = (audience: Audience) =>
  createRouter().openapi(
    audience.route('enrichment:write', {
      method: 'post',
      path: '/enrich',
      idempotent: true,
      tags: [audience.tag('enrichment')],
      summary: 'Enrich one profile (waterfall over the organization’s providers)',
      description:
        'Charges 1 credit per verified work or personal email and 2 per valid phone; nothing when nothing is found. ' +
        'A profile the organization paid for within ENRICHMENT_CACHE_DAYS is answered from the cache for 0 credits.',
      request: { body: { required: true, ...json(EnrichRequestSchema) } },
      responses: { 200: { description: 'The enriched profile', ...json(EnrichResultSchema) } },
      errors: ['validation_error', 'insufficient_credits', 'unprocessable'],
    }),
    async (c) => c.json(await enrichOne(jobContext(c), c.req.valid('json').networkUrl), 200),
  );

/** Bulk enrichment jobs, for the dashboard (`/api/enrichment`) and integrations (`/api/external/enrichment`). */
export const bulkEnrichmentRoutesFor = (audience: Audience) =>
  createRouter()
    .openapi(
      audience.route('enrichment:write', {
        method: 'post',
        path: '/bulk',
        idempotent: true,
        tags: [audience.tag('enrichment')],
        summary: 'Enrich every lead of a list',
        request: { body: { required: true, ...json(BulkEnrichRequestSchema) } },
        responses: { 201: { description: 'Job created', ...json(BulkCreatedSchema) } },
        errors: ['validation_error', 'not_found', 'insufficient_credits', 'unprocessable'],
      }),
      async (c) => c.json(await startBulkEnrichment(jobContext(c), c.req.valid('json')), 201),
    )
    .openapi(
      audience.route('enrichment:write', {
        method: 'get',
        path: '/bulk/{jobId}',
        tags: [audience.tag('enrichment')],
        summary: 'A bulk enrichment job with live counts',
        request: { params: uuidParam('jobId') },
        responses: { 200: { description: 'The job', ...json(BulkJobSchema) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => c.json(await bulkEnrichmentJob(jobContext(c), c.req.valid('param').jobId), 200),
    )
    .openapi(
      audience.route('enrichment:write', {
        method: 'get',
        path: '/bulk/{jobId}/events',
        tags: [audience.tag('enrichment')],
        summary: 'The bulk job live (text/event-stream)',
        request: { params: uuidParam('jobId') },
        responses: {
          200: {
            description:
              'Server-Sent Events: `stage` (first, and on every status change) and `progress` (at most once a second); data is the job as GET shows it; ends after `completed` or `failed`',
            content: { 'text/event-stream': { schema: z.string() } },
          },
        },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        const { jobId } = c.req.valid('param');
        const ctx = jobContext(c);
        return streamJob(c, `enrichment:${jobId}`, () => bulkEnrichmentLive(ctx, jobId));
      },
    );

export const enrichmentRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/bulk',
      tags: ['enrichment'],
      summary: 'Bulk enrichment jobs of the organization, newest first',
      request: { query: PageQuerySchema.extend({ listId: z.uuid().optional().openapi({ description: 'Only the jobs of this list' }) }) },
      responses: { 200: { description: 'A page of jobs', ...json(pageOf(BulkJobSchema)) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const query = c.req.valid('query');
      const { rows, total } = await pageBulkEnrichmentDtos(jobContext(c), query, offsetOf(query), query.limit);
      return c.json(paginated(rows, total, query), 200);
    },
  )
  .route('/', enrichOneRoutesFor(sessionAudience))
  .route('/', findEmailRoutesFor(sessionAudience))
  .route('/', bulkEnrichmentRoutesFor(sessionAudience));
