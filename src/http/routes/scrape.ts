import { streamPages } from '../stream-pages.ts';
import { z } from '@hono/zod-openapi';
import { attachmentDisposition, csvLine } from '../../csv/write.ts';
import { acceptedScrapeColumns } from '../../domain/scrape.ts';
import { ApiError } from '../../errors.ts';
import {
  createScrapeJob,
  pageScrapeJobDtos,
  pauseScrapeJob,
  resumeScrapeJob,
  scrapeJobLive,
  scrapeJobWithItems,
  syncScrapeJob,
} from '../../scrape/service.ts';
import { type ScrapeUploadFields, ScrapeUploadFieldsSchema } from '../../scrape/engine-upload.ts';
import { ScrapeJobSchema } from '../../scrape/views.ts';
import { jobContext } from '../middleware/request-context.ts';
import { streamMultipart } from '../multipart.ts';
import { streamJob } from '../job-stream.ts';
import { createRouter, pathOfNul, sessionRoute } from '../router.ts';
import { offsetOf, pageOf, paginated, uuidParam, json, uploadBody } from '../schemas/common.ts';
import {
  ScrapeCreatedSchema,
  ScrapeDetailQuerySchema,
  ScrapeDownloadQuerySchema,
  ScrapeJobDetailSchema,
  ScrapeListQuerySchema,
  ScrapeSyncResultSchema,
  toScrapeItemDto,
} from '../schemas/scrape.ts';

const JobParams = uuidParam('jobId');
/** The upload form's text fields, or a 400 naming each bad one. */
function uploadFields(fields: Record<string, string>): ScrapeUploadFields {
  const parsed = ScrapeUploadFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    const details = parsed.error.issues.map((issue) => ({ path: ['form', ...issue.path.map(String)].join('.'), message: issue.message }));
    throw new ApiError('validation_error', 'Invalid upload fields', details);
  }
  const nul = pathOfNul(parsed.data, ['form']);
  if (nul) throw new ApiError('validation_error', 'Invalid upload fields', [{ path: nul, message: 'Text may not contain a NUL character' }]);
  return parsed.data;
}

export const scrapeRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/',
      idempotent: true,
      tags: ['scrape'],
      summary: 'Upload a CSV of companies, names or domains and start a scrape job',
      description:
        'Multipart: `file` (UTF-8 CSV, optional BOM, `,` or `;`), optional `name` (default: the file name without extension) and ' +
        '`inputType` (`companies`, `names` or `domains`; default: detected from the header row). Header aliases: ' +
        acceptedScrapeColumns().join(', ') +
        '. The file streams into the database; over SCRAPE_MAX_FILE_BYTES → 413, over SCRAPE_MAX_ROWS → 422.',
      request: {
        body: uploadBody({
          name: { type: 'string', maxLength: 200 },
          inputType: { type: 'string', enum: ['companies', 'names', 'domains'] },
        }),
      },
      responses: { 201: { description: 'Created', ...json(ScrapeCreatedSchema) } },
      errors: ['validation_error', 'payload_too_large', 'unsupported_media_type', 'unprocessable'],
    }),
    async (c) => {
      const { config } = c.var.deps;
      const ctx = jobContext(c);
      const job = await streamMultipart(c.req.raw, {
        fileField: 'file',
        maxFileBytes: config.SCRAPE_MAX_FILE_BYTES,
        parseFields: uploadFields,
        consume: (upload) => createScrapeJob(ctx, upload),
      });
      const rows = job.totalItems === 1 ? 'row' : 'rows';
      return c.json({ job, message: `Scrape job created with ${job.totalItems} ${rows}` }, 201);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/',
      tags: ['scrape'],
      summary: 'Scrape jobs of the organization, newest first',
      request: { query: ScrapeListQuerySchema },
      responses: { 200: { description: 'A page of scrape jobs', ...json(pageOf(ScrapeJobSchema)) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const query = c.req.valid('query');
      const { rows, total } = await pageScrapeJobDtos(jobContext(c), { status: query.status }, offsetOf(query), query.limit);
      return c.json(paginated(rows, total, query), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/{jobId}',
      tags: ['scrape'],
      summary: 'One scrape job with its items in row order',
      description:
        'All items by default, streamed (memory stays flat for 50,000 items). `itemsAfterRow` and `itemsLimit` page them by row number.',
      request: { params: JobParams, query: ScrapeDetailQuerySchema },
      responses: { 200: { description: 'The job and its items', ...json(ScrapeJobDetailSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const query = c.req.valid('query');
      const { job, items } = await scrapeJobWithItems(jobContext(c), c.req.valid('param').jobId, { afterRow: query.itemsAfterRow, limit: query.itemsLimit });
      const head = JSON.stringify(job);
      const body = streamPages(items, (item, index) => (index === 0 ? '' : ',') + JSON.stringify(toScrapeItemDto(item)), {
        prefix: `${head.slice(0, -1)},"items":[`,
        suffix: ']}',
      });
      // The documented JSON, written page by page; the typed c.json() would need it whole in memory.
      return c.body(body, 200, { 'Content-Type': 'application/json' }) as never;
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/{jobId}/download',
      tags: ['scrape'],
      summary: "The job's items as CSV",
      description:
        'Columns `first_name,last_name,company,role,network_url,status`, items in row order. Cells starting with `=`, `@`, tab or CR, or with `+`/`-` not followed by a phone number, are prefixed with `\'`.',
      request: { params: JobParams, query: ScrapeDownloadQuerySchema },
      responses: { 200: { description: 'CSV file', content: { 'text/csv': { schema: z.string() } } } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const foundOnly = c.req.valid('query').foundOnly ?? false;
      const { job, items } = await scrapeJobWithItems(jobContext(c), c.req.valid('param').jobId, { foundOnly });
      const body = streamPages(items, (item) => csvLine([item.firstName, item.lastName, item.company, item.role, item.networkUrl, item.status]), {
        prefix: csvLine(['first_name', 'last_name', 'company', 'role', 'network_url', 'status']),
      });
      return c.body(body, 200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': attachmentDisposition(job.name || `scrape-${job.id}`, 'csv'),
        'Cache-Control': 'no-store',
      });
    },
  )
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/{jobId}/pause',
      tags: ['scrape'],
      summary: 'Pause a pending or processing job',
      description: 'Takes effect within seconds: searches already under way finish, no new one starts.',
      request: { params: JobParams },
      responses: { 200: { description: 'The paused job', ...json(ScrapeJobSchema) } },
      errors: ['validation_error', 'not_found', 'invalid_state'],
    }),
    async (c) => {
      return c.json(await pauseScrapeJob(jobContext(c), c.req.valid('param').jobId), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/{jobId}/resume',
      tags: ['scrape'],
      summary: 'Resume a paused job where it stopped',
      request: { params: JobParams },
      responses: { 200: { description: 'The resumed job', ...json(ScrapeJobSchema) } },
      errors: ['validation_error', 'not_found', 'invalid_state'],
    }),
    async (c) => {
      return c.json(await resumeScrapeJob(jobContext(c), c.req.valid('param').jobId), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/{jobId}/sync',
      idempotent: true,
      tags: ['scrape'],
      summary: "Add the job's found profiles to a list as leads",
      description:
        'The first sync creates a list named after the job; later syncs add only items found since (`leadsCount` counts this call). Allowed in any status.',
      request: { params: JobParams },
      responses: { 200: { description: 'Synced', ...json(ScrapeSyncResultSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { listId, listName, leadsCount } = await syncScrapeJob(jobContext(c), c.req.valid('param').jobId);
      const leads = leadsCount === 1 ? 'lead' : 'leads';
      return c.json({ success: true, listId, leadsCount, message: `Synced ${leadsCount} ${leads} to list "${listName}"` }, 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/{jobId}/events',
      tags: ['scrape'],
      summary: 'The job live, without its items (text/event-stream)',
      request: { params: JobParams },
      responses: { 200: { description: 'Server-Sent Events: `stage` (first, and on every status change) and `progress` (at most once a second); data is the job as GET shows it; ends after `completed` or `failed`', content: { 'text/event-stream': { schema: z.string() } } } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { jobId } = c.req.valid('param');
      const ctx = jobContext(c);
      return streamJob(c, `scrape:${jobId}`, () => scrapeJobLive(ctx, jobId));
    },
  );
