import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { ScrapeInputType, ScrapeJobStatus } from '../../domain/scrape.ts';
import { invalidState, JobGoneError, notFound } from '../../errors.ts';
import { ScrapeJob } from '../entities/index.ts';
import type { IScrapeJob } from '../entities/scrape-job.ts';

export async function getScrapeJob(em: EntityManager, organizationId: string, jobId: string): Promise<IScrapeJob> {
  const job = await em.findOne(ScrapeJob, { id: jobId, organization: organizationId });
  if (!job) throw notFound('Scrape job');
  return job;
}

export async function pageScrapeJobs(
  em: EntityManager,
  organizationId: string,
  filter: { status?: ScrapeJobStatus },
  offset: number,
  limit: number,
) {
  const where: FilterQuery<IScrapeJob> = { organization: organizationId };
  if (filter.status) where.status = filter.status;
  // UUIDv7 ids are time-ordered: id desc is newest first, and unique, so pages never overlap.
  const [rows, total] = await em.findAndCount(ScrapeJob, where, { orderBy: { id: 'desc' }, offset, limit });
  return { rows, total };
}

/**
 * Moves a job between statuses for pause/resume with one conditional update, bumping the control
 * version the workflow orders signals by. Another status answers 409 with the current one.
 */
export async function changeScrapeControl(
  em: EntityManager,
  organizationId: string,
  jobId: string,
  from: readonly ScrapeJobStatus[],
  to: ScrapeJobStatus,
): Promise<IScrapeJob> {
  const rows = await em.execute<Array<{ id: string }>>(
    `update scrape_job set status = ?, control_version = control_version + 1, updated_at = now()
     where id = ? and organization_id = ? and status in (${from.map(() => '?').join(', ')}) returning id`,
    [to, jobId, organizationId, ...from],
  );
  const job = await getScrapeJob(em, organizationId, jobId);
  if (rows.length === 0) throw invalidState(`A ${job.status} scrape job cannot be ${to === 'paused' ? 'paused' : 'resumed'}`, job.status);
  return job;
}

/** What the workflow needs to decide its next step, read in one query. */
export interface ScrapeJobControl {
  status: ScrapeJobStatus;
  controlVersion: number;
  inputType: ScrapeInputType;
}

export async function readScrapeControl(em: EntityManager, jobId: string): Promise<ScrapeJobControl> {
  const [row] = await em.execute<Array<{ status: ScrapeJobStatus; control_version: number; input_type: ScrapeInputType }>>(
    `select status, control_version, input_type from scrape_job where id = ?`,
    [jobId],
  );
  if (!row) throw new JobGoneError('scrape', jobId);
  return { status: row.status, controlVersion: row.control_version, inputType: row.input_type };
}

/** `pending` → `processing` when the first batch starts; a job paused before it started stays paused. */
export async function markScrapeJobStarted(em: EntityManager, jobId: string): Promise<void> {
  await em.execute(`update scrape_job set status = 'processing', updated_at = now() where id = ? and status = 'pending'`, [jobId], 'run');
}

/**
 * Completes the job once no item is pending (a pause that lands after the last item still completes it:
 * every item is processed). False when items are still pending, so the caller goes on processing.
 */
export async function completeScrapeJob(em: EntityManager, jobId: string): Promise<boolean> {
  const rows = await em.execute<Array<{ status: string }>>(
    `update scrape_job set status = 'completed', completed_at = now(), updated_at = now()
     where id = ? and status in ('pending', 'processing', 'paused')
       and not exists (select 1 from scrape_item where job_id = ? and status = 'pending')
     returning status`,
    [jobId, jobId],
  );
  if (rows.length > 0) return true;
  const { status } = await readScrapeControl(em, jobId);
  return status === 'completed' || status === 'failed';
}

/** The job ends `failed`; rows it never searched say why instead of staying `pending` on a finished job. */
export async function failScrapeJob(em: EntityManager, jobId: string, reason: string): Promise<void> {
  await em.execute(
    `with job as (
       update scrape_job set status = 'failed', failure_reason = ?, completed_at = now(), updated_at = now()
       where id = ? and status in ('pending', 'processing', 'paused')
       returning id)
     update scrape_item set status = 'failed', error = ?
     where job_id = (select id from job) and status = 'pending'`,
    [reason.slice(0, 2000), jobId, `Not searched: the job stopped (${reason})`.slice(0, 2000)],
    'run',
  );
}

/** A job whose workflow never started: gone with its items. */
export async function deleteScrapeJob(em: EntityManager, jobId: string): Promise<void> {
  await em.nativeDelete(ScrapeJob, { id: jobId });
}
