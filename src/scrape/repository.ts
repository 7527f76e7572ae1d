import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { ScrapeInputType, ScrapeJobStatus } from '../domain/scrape.ts';
import { invalidState, JobGoneError, notFound } from '../errors.ts';
import { ScrapeJob } from '../db/entities/index.ts';
import { kysely, newestFirst } from '../db/kysely.ts';
import { runSql } from '../db/run-sql.ts';

/** The organization's job as its row, from the typed builder: reads build no entity (clients poll them). */
export async function getScrapeJob(em: EntityManager, organizationId: string, jobId: string) {
  const job = await kysely(em).selectFrom('scrape_job').selectAll().where('id', '=', jobId).where('organization', '=', organizationId).executeTakeFirst();
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
  const kept = kysely(em)
    .selectFrom('scrape_job')
    .where('organization', '=', organizationId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!));
  return newestFirst(kept, offset, limit);
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
) {
  const rows = await kysely(em)
    .updateTable('scrape_job')
    .set((eb) => ({ status: to, controlVersion: eb('controlVersion', '+', 1), updatedAt: sql`now()` }))
    .where('id', '=', jobId)
    .where('organization', '=', organizationId)
    .where('status', 'in', from)
    .returning('id')
    .execute();
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
  const row = await kysely(em).selectFrom('scrape_job').select(['status', 'controlVersion', 'inputType']).where('id', '=', jobId).executeTakeFirst();
  if (!row) throw new JobGoneError('scrape', jobId);
  return row;
}

/**
 * Completes the job once no item is pending (a pause that lands after the last item still completes it:
 * every item is processed). False when items are still pending, so the caller goes on processing.
 */
export async function completeScrapeJob(em: EntityManager, jobId: string): Promise<boolean> {
  const rows = await kysely(em)
    .updateTable('scrape_job')
    .set({ status: 'completed', completedAt: sql`now()`, updatedAt: sql`now()` })
    .where('id', '=', jobId)
    .where('status', 'in', ['pending', 'processing', 'paused'])
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('scrape_item').select(sql`1`.as('one')).where('job', '=', jobId).where('status', '=', 'pending'))),
    )
    .returning('status')
    .execute();
  if (rows.length > 0) return true;
  const { status } = await readScrapeControl(em, jobId);
  return status === 'completed' || status === 'failed';
}

/**
 * Raw SQL: one statement whose CTE updates the job and then its items (all of a large job's pending rows) reads
 * better than its builder form. Parameters: the reason, the job id, the items' error.
 */
export const FAIL_SCRAPE_JOB_SQL = `
  with job as (
    update scrape_job set status = 'failed', failure_reason = ?, completed_at = now(), updated_at = now()
    where id = ? and status in ('pending', 'processing', 'paused')
    returning id)
  update scrape_item set status = 'failed', error = ?
  where job_id = (select id from job) and status = 'pending'`;

/**
 * The job ends `failed`; rows it never searched say why instead of staying `pending` on a finished job. A job
 * deleted meanwhile throws `JobGoneError`.
 */
export async function failScrapeJob(em: EntityManager, jobId: string, reason: string): Promise<void> {
  await runSql(em, FAIL_SCRAPE_JOB_SQL, [reason.slice(0, 2000), jobId, `Not searched: the job stopped (${reason})`.slice(0, 2000)]);
  // A job already closed keeps its ending; one that no longer exists is gone, as for every job kind.
  if ((await em.count(ScrapeJob, { id: jobId })) === 0) throw new JobGoneError('scrape', jobId);
}

/** A job whose workflow never started: gone with its items. */
export async function deleteScrapeJob(em: EntityManager, jobId: string): Promise<void> {
  await em.nativeDelete(ScrapeJob, { id: jobId });
}
