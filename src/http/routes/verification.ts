import { streamPages } from '../stream-pages.ts';
import { z } from '@hono/zod-openapi';
import { attachmentDisposition, csvLine } from '../../csv/write.ts';
import {
  decideVerificationJob,
  finishDeferred,
  pageResults,
  pageVerificationJobDtos,
  resultPages,
  resultTranscript,
  startVerificationJob,
  verificationJob,
  verificationJobLive,
  verificationJobEstimate,
  verificationProgress,
} from '../../verification/service.ts';
import { VerificationJobSchema } from '../../verification/views.ts';
import { streamJob } from '../job-stream.ts';
import { type Audience, createRouter, sessionAudience, sessionRoute } from '../router.ts';
import { iso } from '../../domain/time.ts';
import { offsetOf, pageOf, paginated, uuidParam, json } from '../schemas/common.ts';
import {
  CostEstimateSchema,
  DecisionInputSchema,
  DecisionResultSchema,
  JobListQuerySchema,
  ResultParams,
  ResultsDownloadQuerySchema,
  ResultsQuerySchema,
  toEstimateDto,
  toProgressDto,
  toResultDto,
  VerificationJobInputSchema,
  VerificationProgressSchema,
  VerificationResultSchema,
  VerificationResultTranscriptSchema,
} from '../schemas/verification.ts';
import { jobContext, requestEm } from '../middleware/request-context.ts';
import { organizationId } from '../middleware/session.ts';
import { catchAllCalibration } from '../../outcomes/service.ts';
import { CalibrationSchema } from '../schemas/outcomes.ts';

const JobParams = uuidParam('jobId');
const CSV_HEADER = [
  'email',
  'result',
  'source',
  'reason',
  'domain',
  'mx_host',
  'checked_at',
  'mx_provider',
  'smtp_code',
  'enhanced_code',
  'attempts',
  'catch_all_score',
];
const LEAD_CSV_HEADER = ['first_name', 'last_name', 'company', 'title', 'network_url', 'phone'];

/** A verification job's routes, for the dashboard (`/api/verification`) and integrations (`/api/external/verification`). */
export const verificationJobRoutesFor = (audience: Audience) =>
  createRouter()
    .openapi(
      audience.route('verification:write', {
        method: 'post',
        path: '/jobs',
        idempotent: true,
        tags: [audience.tag('verification')],
        summary: 'Verify the email addresses of a list',
        description:
          'Snapshots the distinct addresses of the list and starts the job; the answer shows `smtp_verifying` for every method. A list without any email is a 422; a list with a job still in progress a 409.',
        request: { body: { required: true, ...json(VerificationJobInputSchema) } },
        responses: { 201: { description: 'Started', ...json(VerificationJobSchema) } },
        errors: ['validation_error', 'not_found', 'invalid_state', 'unprocessable'],
      }),
      async (c) => c.json(await startVerificationJob(jobContext(c), c.req.valid('json')), 201),
    )
    .openapi(
      audience.route('verification:read', {
        method: 'get',
        path: '/jobs/{jobId}',
        tags: [audience.tag('verification')],
        summary: 'One verification job',
        request: { params: JobParams },
        responses: { 200: { description: 'The job', ...json(VerificationJobSchema) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => c.json(await verificationJob(jobContext(c), c.req.valid('param').jobId), 200),
    )
    .openapi(
      audience.route('verification:read', {
        method: 'get',
        path: '/jobs/{jobId}/events',
        tags: [audience.tag('verification')],
        summary: 'The job live (text/event-stream)',
        request: { params: JobParams },
        responses: {
          200: {
            description:
              'Server-Sent Events: `stage` (first, and on every stage change) and `progress` (at most once a second); data is the job as GET shows it; ends after `completed` or `failed`',
            content: { 'text/event-stream': { schema: z.string() } },
          },
        },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        const { jobId } = c.req.valid('param');
        const ctx = jobContext(c);
        return streamJob(c, `verification:${jobId}`, () => verificationJobLive(ctx, jobId));
      },
    )
    .openapi(
      audience.route('verification:write', {
        method: 'post',
        path: '/jobs/{jobId}/decision',
        idempotent: true,
        tags: [audience.tag('verification')],
        summary: 'Decide what to do with the gaps of a job awaiting a decision',
        description:
          '`accept_current` completes the job for free; the other values send only those addresses to the provider (`api_verifying`), the Catch-All ones bounded by `catchAllMaxScore` when given. Any other stage, or a second decision, is a 409 `invalid_state`.',
        request: { params: JobParams, body: { required: true, ...json(DecisionInputSchema) } },
        responses: { 200: { description: 'The stage the job moved to', ...json(DecisionResultSchema) } },
        errors: ['validation_error', 'not_found', 'invalid_state'],
      }),
      async (c) =>
        c.json(await decideVerificationJob(jobContext(c), c.req.valid('param').jobId, c.req.valid('json')), 200),
    )
    .openapi(
      audience.route('verification:write', {
        method: 'post',
        path: '/jobs/{jobId}/finish-deferred',
        tags: [audience.tag('verification')],
        summary: 'Stop waiting for greylisting servers: the deferred addresses become Unknown',
        description:
          'The job skips the rest of `SMTP_GREYLIST_SCHEDULE`: its SMTP stage ends as if the schedule were spent, the deferred addresses `Unknown` (reason `greylisted: deferred …`), and the job moves on (`awaiting_decision` or `completed`). Answers 202 with the job once the workflow took the request; the stage ends a moment later. A job outside `smtp_verifying`, or with nothing deferred, is a 409 `invalid_state`.',
        request: { params: JobParams },
        responses: { 202: { description: 'Accepted: the job as it is now', ...json(VerificationJobSchema) } },
        errors: ['validation_error', 'not_found', 'invalid_state'],
      }),
      async (c) => c.json(await finishDeferred(jobContext(c), c.req.valid('param').jobId), 202),
    )
    .openapi(
      audience.route('verification:read', {
        method: 'get',
        path: '/jobs/{jobId}/results',
        tags: [audience.tag('verification')],
        summary: 'Per-address results of a job, in address order',
        request: { params: JobParams, query: ResultsQuerySchema },
        responses: { 200: { description: 'A page of results', ...json(pageOf(VerificationResultSchema)) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        const query = c.req.valid('query');
        const filter = { results: query.result && [query.result], minScore: query.minScore, maxScore: query.maxScore };
        const { rows, total } = await pageResults(jobContext(c), c.req.valid('param').jobId, filter, offsetOf(query), query.limit);
        return c.json(paginated(rows.map(toResultDto), total, query), 200);
      },
    )
    .openapi(
      audience.route('verification:read', {
        method: 'get',
        path: '/jobs/{jobId}/results/{email}',
        tags: [audience.tag('verification')],
        summary: "One address's result with the SMTP transcript of each attempt",
        description:
          'Lines as sent and received, nothing redacted. An address that is not in the job is a 404 `not_found`.',
        request: { params: ResultParams },
        responses: { 200: { description: 'The result', ...json(VerificationResultTranscriptSchema) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        const { jobId, email } = c.req.valid('param');
        const { row, transcript } = await resultTranscript(jobContext(c), jobId, email);
        return c.json({ ...toResultDto(row), transcript }, 200);
      },
    );

// The shared routes come last: `/jobs/{jobId}/results/{email}` would otherwise take `…/results/download`.
export const verificationRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/jobs',
      tags: ['verification'],
      summary: 'Verification jobs of the organization, newest first',
      request: { query: JobListQuerySchema },
      responses: { 200: { description: 'A page of jobs', ...json(pageOf(VerificationJobSchema)) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const query = c.req.valid('query');
      const { rows, total } = await pageVerificationJobDtos(jobContext(c), query, offsetOf(query), query.limit);
      return c.json(paginated(rows, total, query), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/jobs/{jobId}/progress',
      tags: ['verification'],
      summary: 'Progress of a job with per-domain statistics',
      request: { params: JobParams },
      responses: { 200: { description: 'Progress', ...json(VerificationProgressSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { view, domains } = await verificationProgress(jobContext(c), c.req.valid('param').jobId);
      return c.json(toProgressDto(view, domains), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/catch-all-calibration',
      tags: ['verification'],
      summary: 'How the Catch-All scores held up against reported send outcomes',
      description:
        "11 bands (score 0–10) over the organization's latest Catch-All result per address: how many, how many have a delivered or hard-bounce outcome reported at or after the result (soft bounces are not counted), and the hard bounces among those.",
      responses: { 200: { description: 'Calibration', ...json(CalibrationSchema) } },
    }),
    async (c) => c.json({ bands: await catchAllCalibration(requestEm(c), organizationId(c)) }, 200),
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/jobs/{jobId}/estimate',
      tags: ['verification'],
      summary: 'Cost of filling the gaps with the verification provider',
      request: { params: JobParams },
      responses: { 200: { description: 'Estimate', ...json(CostEstimateSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { view, catchAllByScore } = await verificationJobEstimate(jobContext(c), c.req.valid('param').jobId);
      return c.json(toEstimateDto(view, catchAllByScore), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/jobs/{jobId}/results/download',
      tags: ['verification'],
      summary: 'Per-address results as CSV',
      description:
        'Columns `email,result,source,reason,domain,mx_host,checked_at,mx_provider,smtp_code,enhanced_code,attempts,catch_all_score`, ' +
        'then with `columns=lead` `first_name,last_name,company,title,network_url,phone` of the first lead holding the address. ' +
        '`result` keeps the listed types (`Valid,Catch-All`); `minScore`/`maxScore` bound the Catch-All ones (alone, they keep only Catch-All). ' +
        'The file is named after the list (`<list>-verification.csv`).',
      request: { params: JobParams, query: ResultsDownloadQuerySchema },
      responses: { 200: { description: 'CSV file', content: { 'text/csv': { schema: z.string() } } } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { result: results, minScore, maxScore, columns } = c.req.valid('query');
      const withLead = columns === 'lead';
      const { listName, pages } = await resultPages(jobContext(c), c.req.valid('param').jobId, { results, minScore, maxScore }, withLead);
      const header = withLead ? [...CSV_HEADER, ...LEAD_CSV_HEADER] : CSV_HEADER;
      const body = streamPages(
        pages,
        ({ result: r, lead }) => {
          const cells = [
            r.email,
            r.result,
            r.source,
            r.reason,
            r.domain,
            r.mxHost,
            iso(r.checkedAt),
            r.mxProvider,
            r.smtpCode === null ? null : String(r.smtpCode),
            r.enhancedCode,
            String(r.attempts),
            r.catchAllScore === null ? null : String(r.catchAllScore),
          ];
          if (!withLead) return csvLine(cells);
          return csvLine([...cells, lead?.firstName, lead?.lastName, lead?.company, lead?.title, lead?.networkUrl, lead?.phone]);
        },
        { prefix: csvLine(header) },
      );
      return c.body(body, 200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': attachmentDisposition(`${listName}-verification`, 'csv'),
      });
    },
  )
  .route('/', verificationJobRoutesFor(sessionAudience));
