/**
 * The scrape job's application service: what `/api/scrape` does, with plain arguments. The route reads the
 * multipart body and validates the form's fields; everything else about a scrape job happens here.
 */
import type { Readable } from 'node:stream';
import { WorkflowNotFoundError } from '@temporalio/client';
import { newId } from '../db/entities/common.ts';
import { ScrapeJob } from '../db/entities/index.ts';
import {
  acceptedScrapeColumns,
  detectInputType,
  jobNameFromFileName,
  PAUSABLE,
  requiredColumnsText,
  RESUMABLE,
  type ScrapeJobStatus,
  supportsInputType,
} from '../domain/scrape.ts';
import { ApiError } from '../errors.ts';
import type { JobContext } from '../jobs/context.ts';
import { startWorkflow } from '../jobs/start.ts';
import { type JobView, liveView } from '../jobs/views.ts';
import { workflowId } from '../temporal/shared.ts';
import { pauseScrapeSignal, resumeScrapeSignal, scrapeWorkflowType } from './messages.ts';
import { changeScrapeControl, deleteScrapeJob, getScrapeJob, pageScrapeJobs } from './repository.ts';
import { itemsAfter, type ScrapeItemRow } from './repository-items.ts';
import { syncScrapeJob as syncItemsToList, type ScrapeSyncResult } from './repository-sync.ts';
import { type ScrapeUploadFields, storeScrapeRows } from './engine-upload.ts';
import { type ScrapeJobDto, toScrapeJobDto } from './views.ts';

/** Items read per query when streaming a job's items (detail and download). */
const ITEMS_PAGE = 2000;

/** An upload as the route hands it over: the CSV as it streams in (never buffered whole) and the form's text fields. */
export interface ScrapeUpload {
  fileName: string;
  stream: Readable;
  /** Validated; known only once the whole body is read, since they may follow the file. */
  fields: Promise<ScrapeUploadFields>;
}

/** Stores the job with its rows in one transaction and starts its workflow; one that cannot start is taken back. */
export async function createScrapeJob(ctx: JobContext, upload: ScrapeUpload): Promise<ScrapeJobDto> {
  const { em, organizationId, config } = ctx;
  const job = await em.transactional(async (tx) => {
    // The job row comes first (items reference it); its name and input type are settled once the whole upload is read.
    const created = tx.create(ScrapeJob, { id: newId(), organization: organizationId, name: '', inputType: 'companies', status: 'pending', totalItems: 0 });
    await tx.flush();
    const stored = await storeScrapeRows(tx, created.id, upload.stream, config.SCRAPE_MAX_ROWS);
    const fields = await upload.fields;
    const inputType = fields.inputType ?? detectInputType(stored.columns);
    if (!inputType) {
      throw new ApiError('unprocessable', 'The header row names no usable set of columns', {
        reason: 'unrecognized_headers',
        accepted: acceptedScrapeColumns(),
      });
    }
    if (!supportsInputType(stored.columns, inputType)) {
      throw new ApiError('unprocessable', `A ${inputType} file needs the column(s) ${requiredColumnsText(inputType)}`, {
        reason: 'missing_columns',
        inputType,
        required: requiredColumnsText(inputType),
        accepted: acceptedScrapeColumns(),
      });
    }
    created.name = fields.name || jobNameFromFileName(upload.fileName) || 'Scrape job';
    created.inputType = inputType;
    created.totalItems = stored.totalItems;
    await tx.flush();
    return created;
  });
  await startWorkflow(
    ctx,
    { kind: 'scrape', id: job.id, organizationId, workflow: scrapeWorkflowType, args: [{ jobId: job.id }] },
    // Taken back as any rejected upload is.
    () => deleteScrapeJob(em.fork(), job.id),
  );
  return toScrapeJobDto(job);
}

export async function pageScrapeJobDtos(ctx: JobContext, filter: { status?: ScrapeJobStatus | undefined }, offset: number, limit: number) {
  const { rows, total } = await pageScrapeJobs(ctx.em, ctx.organizationId, filter, offset, limit);
  return { rows: rows.map(toScrapeJobDto), total };
}

/** The job and its items in row order, page by page (keyset), so memory stays flat however many there are. */
export async function scrapeJobWithItems(
  ctx: JobContext,
  jobId: string,
  opts: { afterRow?: number | undefined; limit?: number | undefined; foundOnly?: boolean } = {},
): Promise<{ job: ScrapeJobDto; items: AsyncIterable<ScrapeItemRow[]> }> {
  const job = await getScrapeJob(ctx.em, ctx.organizationId, jobId);
  const { em } = ctx;
  async function* items() {
    let afterRow = opts.afterRow ?? 0;
    let left = opts.limit ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const page = await itemsAfter(em, job.id, afterRow, Math.min(ITEMS_PAGE, left), { foundOnly: opts.foundOnly });
      if (page.length === 0) return;
      yield page;
      afterRow = page.at(-1)!.rowNumber;
      left -= page.length;
    }
  }
  return { job: toScrapeJobDto(job), items: items() };
}

/** The job as its live stream shows it (without items), read from a fresh EntityManager each time. */
export async function scrapeJobLive(ctx: JobContext, jobId: string): Promise<JobView> {
  const dto = toScrapeJobDto(await getScrapeJob(ctx.em.fork(), ctx.organizationId, jobId));
  return liveView(dto.status, dto);
}

/**
 * Pause and resume move the job's status first (what answers 409), then signal the new control version; a
 * workflow that already closed has nothing left to pause or resume.
 */
async function control(ctx: JobContext, jobId: string, hold: boolean): Promise<ScrapeJobDto> {
  const job = await changeScrapeControl(ctx.em, ctx.organizationId, jobId, hold ? PAUSABLE : RESUMABLE, hold ? 'paused' : 'processing');
  try {
    await ctx.temporal.workflow.getHandle(workflowId('scrape', job.id)).signal(hold ? pauseScrapeSignal : resumeScrapeSignal, { version: job.controlVersion });
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  return toScrapeJobDto(job);
}

export const pauseScrapeJob = (ctx: JobContext, jobId: string) => control(ctx, jobId, true);
export const resumeScrapeJob = (ctx: JobContext, jobId: string) => control(ctx, jobId, false);

/** Adds the job's found profiles to its list as leads (the first sync creates the list). */
export function syncScrapeJob(ctx: JobContext, jobId: string): Promise<ScrapeSyncResult> {
  return syncItemsToList(ctx.em, ctx.organizationId, jobId);
}
