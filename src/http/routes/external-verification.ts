import { z } from '@hono/zod-openapi';
import { decideVerificationJob, pageResultDtos, startVerificationJob, streamVerificationJob, verificationJobDto } from '../handlers/verification.ts';
import { verifyAddress } from '../handlers/verify-address.ts';
import { apiKeyRoute, createRouter } from '../router.ts';
import { pageOf, uuidParam, json } from '../schemas/common.ts';
import {
  DecisionInputSchema,
  DecisionResultSchema,
  ResultsQuerySchema,
  VerificationJobInputSchema,
  VerificationJobSchema,
  VerificationResultSchema,
} from '../schemas/verification.ts';
import { VerifyInputSchema, VerifyResultSchema } from '../schemas/verify.ts';

const JobParams = uuidParam('jobId');

/** `/api/external/verify` and `/api/external/verification/jobs`: verification for integrations (CONTRACT §9.1). */
export const externalVerificationRoutes = createRouter()
  .openapi(
    apiKeyRoute('verification:write', {
      method: 'post',
      path: '/verify',
      tags: ['external'],
      summary: 'Verify one address in real time',
      description:
        'The same SMTP check as a job, through the same connection limits, answered within `timeoutMs` plus one second. ' +
        'A final answer the organization got within VERIFY_RESULT_CACHE_TTL is replayed (`cached: true`); an answer that ' +
        'could not be final in time is `Unknown` with `retryAfterSeconds`. Free.',
      request: { body: { required: true, ...json(VerifyInputSchema) } },
      responses: { 200: { description: 'The verdict', ...json(VerifyResultSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => c.json(await verifyAddress(c, c.req.valid('json')), 200),
  )
  .openapi(
    apiKeyRoute('verification:write', {
      method: 'post',
      path: '/verification/jobs',
      idempotent: true,
      tags: ['external'],
      summary: 'Verify the email addresses of a list',
      request: { body: { required: true, ...json(VerificationJobInputSchema) } },
      responses: { 201: { description: 'Started', ...json(VerificationJobSchema) } },
      errors: ['validation_error', 'not_found', 'invalid_state', 'unprocessable'],
    }),
    async (c) => c.json(await startVerificationJob(c, c.req.valid('json')), 201),
  )
  .openapi(
    apiKeyRoute('verification:read', {
      method: 'get',
      path: '/verification/jobs/{jobId}',
      tags: ['external'],
      summary: 'One verification job',
      request: { params: JobParams },
      responses: { 200: { description: 'The job', ...json(VerificationJobSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => c.json(await verificationJobDto(c, c.req.valid('param').jobId), 200),
  )
  .openapi(
    apiKeyRoute('verification:read', {
      method: 'get',
      path: '/verification/jobs/{jobId}/events',
      tags: ['external'],
      summary: 'The job live (text/event-stream)',
      request: { params: JobParams },
      responses: { 200: { description: 'Server-Sent Events: `stage` (first, and on every stage change) and `progress` (at most once a second); data is the job as GET shows it; ends after `completed` or `failed`', content: { 'text/event-stream': { schema: z.string() } } } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => streamVerificationJob(c, c.req.valid('param').jobId),
  )
  .openapi(
    apiKeyRoute('verification:read', {
      method: 'get',
      path: '/verification/jobs/{jobId}/results',
      tags: ['external'],
      summary: 'Per-address results of a job, in address order',
      request: { params: JobParams, query: ResultsQuerySchema },
      responses: { 200: { description: 'A page of results', ...json(pageOf(VerificationResultSchema)) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => c.json(await pageResultDtos(c, c.req.valid('param').jobId, c.req.valid('query')), 200),
  )
  .openapi(
    apiKeyRoute('verification:write', {
      method: 'post',
      path: '/verification/jobs/{jobId}/decision',
      idempotent: true,
      tags: ['external'],
      summary: 'Decide what to do with the gaps of a job awaiting a decision',
      request: { params: JobParams, body: { required: true, ...json(DecisionInputSchema) } },
      responses: { 200: { description: 'The stage the job moved to', ...json(DecisionResultSchema) } },
      errors: ['validation_error', 'not_found', 'invalid_state'],
    }),
    async (c) => c.json(await decideVerificationJob(c, c.req.valid('param').jobId, c.req.valid('json')), 200),
  );
