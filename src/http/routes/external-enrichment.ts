import { z } from '@hono/zod-openapi';
import { bulkEnrichmentDto, enrichOne, startBulkEnrichment, streamBulkEnrichment } from '../handlers/enrichment.ts';
import { apiKeyRoute, createRouter } from '../router.ts';
import { uuidParam, json } from '../schemas/common.ts';
import { BulkCreatedSchema, BulkEnrichRequestSchema, BulkJobSchema, EnrichRequestSchema, EnrichResultSchema } from '../schemas/enrichment.ts';

/** `/api/external/enrich` and `/api/external/enrichment/bulk`: enrichment for integrations (CONTRACT §9.1). */
export const externalEnrichmentRoutes = createRouter()
  .openapi(
    apiKeyRoute('enrichment:write', {
      method: 'post',
      path: '/enrich',
      idempotent: true,
      tags: ['external'],
      summary: 'Enrich one profile, as POST /api/enrichment/enrich',
      request: { body: { required: true, ...json(EnrichRequestSchema) } },
      responses: { 200: { description: 'The enriched profile', ...json(EnrichResultSchema) } },
      errors: ['validation_error', 'insufficient_credits', 'unprocessable'],
    }),
    async (c) => c.json(await enrichOne(c, c.req.valid('json').networkUrl), 200),
  )
  .openapi(
    apiKeyRoute('enrichment:write', {
      method: 'post',
      path: '/enrichment/bulk',
      idempotent: true,
      tags: ['external'],
      summary: 'Enrich every lead of a list, as POST /api/enrichment/bulk',
      request: { body: { required: true, ...json(BulkEnrichRequestSchema) } },
      responses: { 201: { description: 'Job created', ...json(BulkCreatedSchema) } },
      errors: ['validation_error', 'not_found', 'insufficient_credits', 'unprocessable'],
    }),
    async (c) => c.json(await startBulkEnrichment(c, c.req.valid('json')), 201),
  )
  .openapi(
    apiKeyRoute('enrichment:write', {
      method: 'get',
      path: '/enrichment/bulk/{jobId}',
      tags: ['external'],
      summary: 'A bulk enrichment job with live counts',
      request: { params: uuidParam('jobId') },
      responses: { 200: { description: 'The job', ...json(BulkJobSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => c.json(await bulkEnrichmentDto(c, c.req.valid('param').jobId), 200),
  )
  .openapi(
    apiKeyRoute('enrichment:write', {
      method: 'get',
      path: '/enrichment/bulk/{jobId}/events',
      tags: ['external'],
      summary: 'The bulk job live (text/event-stream)',
      request: { params: uuidParam('jobId') },
      responses: { 200: { description: 'Server-Sent Events: `stage` (first, and on every status change) and `progress` (at most once a second); data is the job as GET shows it; ends after `completed` or `failed`', content: { 'text/event-stream': { schema: z.string() } } } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => streamBulkEnrichment(c, c.req.valid('param').jobId),
  );
