import { z } from '@hono/zod-openapi';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Context } from 'hono';
import { storeScrapeRows } from '../../scrape/upload.ts';
import { attachmentDisposition, csvLine } from '../../csv/write.ts';
import { newId } from '../../db/entities/common.ts';
import { ScrapeJob } from '../../db/entities/index.ts';
import type { IScrapeJob } from '../../db/entities/scrape-job.ts';
import { itemsAfter, type ScrapeItemRow } from '../../scrape/repository-items.ts';
import { changeScrapeControl, deleteScrapeJob, getScrapeJob, pageScrapeJobs } from '../../scrape/repository.ts';
import { syncScrapeJob } from '../../scrape/repository-sync.ts';
import {
  acceptedScrapeColumns,
  detectInputType,
  jobNameFromFileName,
  PAUSABLE,
  requiredColumnsText,
  RESUMABLE,
  supportsInputType,
} from '../../domain/scrape.ts';
import { pauseScrapeSignal, resumeScrapeSignal } from '../../scrape/messages.ts';
import { workflowId } from '../../temporal/shared.ts';
import { startJobWorkflow } from '../../jobs/start.ts';
import type { scrapeWorkflow } from '../../../workflows/scrape.ts';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';
import { organizationId } from '../middleware/session.ts';
import { streamMultipart } from '../multipart.ts';
import { streamJob } from '../job-stream.ts';
import { createRouter, pathOfNul, sessionRoute } from '../router.ts';
import { offsetOf, pageOf, paginated, uuidParam, json, uploadBody } from '../schemas/common.ts';
import {
  ScrapeCreatedSchema,
  ScrapeDetailQuerySchema,
  ScrapeDownloadQuerySchema,
  ScrapeJobDetailSchema,
  ScrapeJobSchema,
  ScrapeListQuerySchema,
  ScrapeSyncResultSchema,
  ScrapeUploadFieldsSchema,
  toScrapeItemDto,
} from '../schemas/scrape.ts';
import { toScrapeJobDto } from '../../jobs/views.ts';
import { requestEm } from '../middleware/request-context.ts';

const JobParams = uuidParam('jobId');
/** Items read per query when streaming a job's items (detail and download). */
const STREAM_PAGE = 2000;
const encoder = new TextEncoder();

/** Streams `prefix`, the job's items (keyset pages in row order) rendered by `render`, then `suffix`. */
function streamItems(
  c: Context<AppEnv>,
  jobId: string,
  opts: { prefix: string; suffix: string; render: (item: ScrapeItemRow, index: number) => string; afterRow?: number; limit?: number; foundOnly?: boolean },
): ReadableStream<Uint8Array> {
  const em = requestEm(c);
  async function* chunks() {
    yield encoder.encode(opts.prefix);
    let afterRow = opts.afterRow ?? 0;
    let left = opts.limit ?? Number.POSITIVE_INFINITY;
    let index = 0;
    while (left > 0) {
      const page = await itemsAfter(em, jobId, afterRow, Math.min(STREAM_PAGE, left), { foundOnly: opts.foundOnly });
      if (page.length === 0) break;
      yield encoder.encode(page.map((item) => opts.render(item, index++)).join(''));
      afterRow = page.at(-1)!.rowNumber;
      left -= page.length;
    }
    yield encoder.encode(opts.suffix);
  }
  return ReadableStream.from(chunks());
}

/** Signals the job's workflow; a workflow that already closed has nothing left to pause or resume. */
async function signalWorkflow(c: Context<AppEnv>, job: IScrapeJob, signal: typeof pauseScrapeSignal) {
  try {
    await c.var.deps.temporal.workflow.getHandle(workflowId('scrape', job.id)).signal(signal, { version: job.controlVersion });
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
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
      const { deps } = c.var;
      const em = requestEm(c);
      const orgId = organizationId(c);
      const job = await em.transactional(async (tx) => {
        // The job row comes first (items reference it); the text fields may follow the file, so its
        // name and input type are settled once the whole upload is read.
        const created = tx.create(ScrapeJob, { id: newId(), organization: orgId, name: '', inputType: 'companies', status: 'pending', totalItems: 0 });
        await tx.flush();
        const { fields, result } = await streamMultipart(c.req.raw, {
          fileField: 'file',
          maxFileBytes: deps.config.SCRAPE_MAX_FILE_BYTES,
          consume: async (file) => ({ fileName: file.fileName, ...(await storeScrapeRows(tx, created.id, file.stream, deps.config.SCRAPE_MAX_ROWS)) }),
        });
        const parsed = ScrapeUploadFieldsSchema.safeParse(fields);
        if (!parsed.success) {
          const details = parsed.error.issues.map((issue) => ({ path: ['form', ...issue.path.map(String)].join('.'), message: issue.message }));
          throw new ApiError('validation_error', 'Invalid upload fields', details);
        }
        const nul = pathOfNul(parsed.data, ['form']);
        if (nul) throw new ApiError('validation_error', 'Invalid upload fields', [{ path: nul, message: 'Text may not contain a NUL character' }]);
        const inputType = parsed.data.inputType ?? detectInputType(result.columns);
        if (!inputType) {
          throw new ApiError('unprocessable', 'The header row names no usable set of columns', {
            reason: 'unrecognized_headers',
            accepted: acceptedScrapeColumns(),
          });
        }
        if (!supportsInputType(result.columns, inputType)) {
          throw new ApiError('unprocessable', `A ${inputType} file needs the column(s) ${requiredColumnsText(inputType)}`, {
            reason: 'missing_columns',
            inputType,
            required: requiredColumnsText(inputType),
            accepted: acceptedScrapeColumns(),
          });
        }
        created.name = parsed.data.name || jobNameFromFileName(result.fileName) || 'Scrape job';
        created.inputType = inputType;
        created.totalItems = result.totalItems;
        await tx.flush();
        return created;
      });

      await startJobWorkflow<typeof scrapeWorkflow>(
        deps.temporal,
        deps.config.TEMPORAL_TASK_QUEUE,
        { kind: 'scrape', jobId: job.id, organizationId: orgId, workflowType: 'scrapeWorkflow', args: [{ jobId: job.id }] },
        // Taken back as any rejected upload is.
        () => deleteScrapeJob(em.fork(), job.id),
      );
      const rows = job.totalItems === 1 ? 'row' : 'rows';
      return c.json({ job: toScrapeJobDto(job), message: `Scrape job created with ${job.totalItems} ${rows}` }, 201);
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
      const { rows, total } = await pageScrapeJobs(requestEm(c), organizationId(c), { status: query.status }, offsetOf(query), query.limit);
      return c.json(paginated(rows.map(toScrapeJobDto), total, query), 200);
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
      const job = await getScrapeJob(requestEm(c), organizationId(c), c.req.valid('param').jobId);
      const query = c.req.valid('query');
      const head = JSON.stringify(toScrapeJobDto(job));
      const body = streamItems(c, job.id, {
        prefix: `${head.slice(0, -1)},"items":[`,
        suffix: ']}',
        render: (item, index) => (index === 0 ? '' : ',') + JSON.stringify(toScrapeItemDto(item)),
        afterRow: query.itemsAfterRow,
        limit: query.itemsLimit,
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
        'Columns `first_name,last_name,company,role,network_url,status`, items in row order. Cells starting with `=`, `+`, `-`, `@`, tab or CR are prefixed with `\'`.',
      request: { params: JobParams, query: ScrapeDownloadQuerySchema },
      responses: { 200: { description: 'CSV file', content: { 'text/csv': { schema: z.string() } } } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const job = await getScrapeJob(requestEm(c), organizationId(c), c.req.valid('param').jobId);
      const foundOnly = c.req.valid('query').foundOnly ?? false;
      const body = streamItems(c, job.id, {
        prefix: csvLine(['first_name', 'last_name', 'company', 'role', 'network_url', 'status']),
        suffix: '',
        render: (item) => csvLine([item.firstName, item.lastName, item.company, item.role, item.networkUrl, item.status]),
        foundOnly,
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
      const job = await changeScrapeControl(requestEm(c), organizationId(c), c.req.valid('param').jobId, PAUSABLE, 'paused');
      await signalWorkflow(c, job, pauseScrapeSignal);
      return c.json(toScrapeJobDto(job), 200);
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
      const job = await changeScrapeControl(requestEm(c), organizationId(c), c.req.valid('param').jobId, RESUMABLE, 'processing');
      await signalWorkflow(c, job, resumeScrapeSignal);
      return c.json(toScrapeJobDto(job), 200);
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
      const { listId, listName, leadsCount } = await syncScrapeJob(requestEm(c), organizationId(c), c.req.valid('param').jobId);
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
      const orgId = organizationId(c);
      const { jobId } = c.req.valid('param');
      return streamJob(c, `scrape:${jobId}`, async () => {
        const dto = toScrapeJobDto(await getScrapeJob(requestEm(c).fork(), orgId, jobId));
        return { stage: dto.status, terminal: dto.status === 'completed' || dto.status === 'failed', data: dto };
      });
    },
  );
