import type { EntityManager } from '@mikro-orm/postgresql';
import { type Selectable, sql } from 'kysely';
import type { EmailResult } from '../domain/lead.ts';
import { CATCH_ALL_MAX_SCORE, CATCH_ALL_SCORES } from '../domain/catch-all.ts';
import {
  ACTIVE_STAGES,
  type VerificationMethod,
  type VerificationStage,
} from '../domain/verification.ts';
import { ApiError, notFound } from '../errors.ts';
import { VerificationJob } from '../db/entities/index.ts';
import { type Database, kysely, newestFirst } from '../db/kysely.ts';
import type { IVerificationJob } from '../db/entities/verification-job.ts';
import { countFirstDomains, FIRST_RANGE_ADDRESSES, holdJobCreation, writeSnapshotRange } from './repository-snapshot.ts';
import type { CatchAllBand, DomainStat, JobFacts, ResultRow, VerificationJobCounts, VerificationJobView } from './views.ts';
import { runSql } from '../db/run-sql.ts';

const emptyCounts = (): VerificationJobCounts => ({
  processed: 0,
  deferred: 0,
  smtp: { Valid: 0, Invalid: 0, 'Catch-All': 0, Unknown: 0 },
  final: { valid: 0, invalid: 0, catchAll: 0, unknown: 0 },
  api: { Valid: 0, Invalid: 0, 'Catch-All': 0, Unknown: 0, verified: 0, costMicros: 0 },
  lastCheckedAt: null,
});

/**
 * A new job in `smtp_verifying` with the list's first domains counted and written (repository-snapshot.ts: about
 * FIRST_RANGE_ADDRESSES addresses; the rest are counted once its workflow has started, `countJobDomains`, and
 * written while the first are probed). The list row is locked first, so two concurrent creations for one list
 * serialize and the second sees the first's job. `start` (the job's workflow) runs once the first domains are
 * counted, before they are written, under the job's creation lock: a start that fails takes the job with it.
 */
export async function createVerificationJob(
  em: EntityManager,
  organizationId: string,
  listId: string,
  method: VerificationMethod,
  start: (jobId: string) => Promise<unknown>,
): Promise<VerificationJobView & { job: IVerificationJob }> {
  return em.transactional(async (tx) => {
    const db = kysely(tx);
    const list = await db
      .selectFrom('lead_list')
      .select(['id', 'name'])
      .where('id', '=', listId)
      .where('organization', '=', organizationId)
      .forUpdate()
      .executeTakeFirst();
    if (!list) throw notFound('List');
    const active = await db
      .selectFrom('verification_job')
      .select(['id', 'verificationStage'])
      .where('list', '=', listId)
      .where('verificationStage', 'in', [...ACTIVE_STAGES])
      .limit(1)
      .executeTakeFirst();
    if (active) {
      throw new ApiError('invalid_state', 'The list already has a verification job in progress', {
        currentState: active.verificationStage,
        jobId: active.id,
      });
    }
    const job = tx.create(VerificationJob, {
      organization: organizationId,
      list: listId,
      verificationMethod: method,
      verificationStage: 'smtp_verifying',
      totalEmails: 0,
      snapshotSeq: null,
      domainsCounted: true,
      smtpCompletedAt: null,
      userDecision: null,
      catchAllMaxScore: null,
      decisionMadeAt: null,
      completedAt: null,
      failureReason: null,
      warnings: [],
    });
    await tx.flush();

    const counted = await countFirstDomains(tx, job.id, listId);
    if (counted.addresses === 0) {
      throw new ApiError('unprocessable', 'The list has no lead with an email address', { reason: 'no_emails' });
    }
    await holdJobCreation(tx, job.id);
    await start(job.id);
    const first = await writeSnapshotRange(tx, job.id, listId, 0, FIRST_RANGE_ADDRESSES);
    job.snapshotSeq = first.all && counted.all ? null : first.toSeq;
    job.domainsCounted = counted.all;
    job.totalEmails = counted.addresses + first.drift;
    await tx.flush();
    // Nothing has been checked yet: the counts are zero by construction, whatever the worker does next.
    return { job, listName: list.name, counts: emptyCounts() };
  });
}

/**
 * The organization's job as its row, from the typed builder: reads build no entity (clients poll them, and the ORM's
 * find, hydration and identity map cost the API about 1.5 ms of CPU a read, more than the rest of a GET).
 */
export async function getVerificationJob(em: EntityManager, organizationId: string, jobId: string) {
  const job = await kysely(em)
    .selectFrom('verification_job')
    .selectAll()
    .where('id', '=', jobId)
    .where('organization', '=', organizationId)
    .executeTakeFirst();
  if (!job) throw notFound('Verification job');
  return job;
}

/** The domains' running counts a job's answer sums, by the name it reads them under. */
const DOMAIN_SUMS = {
  processed: 'processed_count',
  deferred: 'deferred_count',
  smtpValid: 'smtp_valid_count',
  smtpInvalid: 'smtp_invalid_count',
  smtpCatchAll: 'smtp_catch_all_count',
  smtpUnknown: 'smtp_unknown_count',
  valid: 'valid_count',
  invalid: 'invalid_count',
  catchAll: 'catch_all_count',
  unknown: 'unknown_count',
  apiValid: 'api_valid_count',
  apiInvalid: 'api_invalid_count',
  apiCatchAll: 'api_catch_all_count',
  apiUnknown: 'api_unknown_count',
} as const;

/**
 * What the read routes add to each given job, in one statement: its list's name, the sums of its domains' running
 * counts (kept by a trigger, see VerificationDomain, so the cost is the job's domains, not its results) and of its
 * spend. A job polled every second pays one round trip for them, not three. Raw SQL: rows as plain values, none
 * mapped by the ORM's builder. Parameters: the jobs' ids.
 */
export const JOB_AGGREGATES_SQL = `
  select j.id as "job", l.name as "listName", c.*, s.micros as "costMicros"
    from verification_job j
    left join lead_list l on l.id = j.list_id
    cross join lateral (
      select ${Object.entries(DOMAIN_SUMS).map(([alias, column]) => `coalesce(sum(d.${column}), 0)::int as "${alias}"`).join(', ')},
             max(d.last_checked_at) as "lastCheckedAt"
        from verification_domain d where d.job_id = j.id) c
    cross join lateral (select coalesce(sum(v.amount_micros), 0)::bigint as micros from verification_spend v where v.job_id = j.id) s
   where j.id = any(?::uuid[])`;

type JobAggregates = Record<keyof typeof DOMAIN_SUMS, number> & {
  job: string;
  /** null once the list is gone (its jobs go with it; a webhook event may still describe one). */
  listName: string | null;
  /** bigint, as text. */
  costMicros: string;
  lastCheckedAt: Date | null;
};

export async function viewVerificationJobs(em: EntityManager, jobs: readonly JobFacts[]): Promise<VerificationJobView[]> {
  const rows = jobs.length === 0 ? [] : await runSql<JobAggregates>(em, JOB_AGGREGATES_SQL, [jobs.map((j) => j.id)]);
  const byJob = new Map(rows.map((r) => [r.job, r]));
  return jobs.map((job) => {
    const r = byJob.get(job.id);
    return { job, listName: r?.listName ?? '', counts: r ? countsOf(r) : emptyCounts() };
  });
}

function countsOf(r: JobAggregates): VerificationJobCounts {
  return {
    processed: r.processed,
    deferred: r.deferred,
    smtp: { Valid: r.smtpValid, Invalid: r.smtpInvalid, 'Catch-All': r.smtpCatchAll, Unknown: r.smtpUnknown },
    final: { valid: r.valid, invalid: r.invalid, catchAll: r.catchAll, unknown: r.unknown },
    api: {
      Valid: r.apiValid,
      Invalid: r.apiInvalid,
      'Catch-All': r.apiCatchAll,
      Unknown: r.apiUnknown,
      verified: r.apiValid + r.apiInvalid + r.apiCatchAll + r.apiUnknown,
      costMicros: Number(r.costMicros),
    },
    lastCheckedAt: r.lastCheckedAt,
  };
}

/** The organization's job as its reads show it. */
export async function viewVerificationJob(em: EntityManager, organizationId: string, jobId: string): Promise<VerificationJobView> {
  const [view] = await viewVerificationJobs(em, [await getVerificationJob(em, organizationId, jobId)]);
  return view!;
}

export interface JobFilter {
  listId?: string;
  verificationStage?: VerificationStage;
}

/** A page of the organization's jobs, newest first, as rows (see getVerificationJob), and how many the filter keeps. */
export async function pageVerificationJobs(em: EntityManager, organizationId: string, filter: JobFilter, offset: number, limit: number) {
  const kept = kysely(em)
    .selectFrom('verification_job')
    .where('organization', '=', organizationId)
    .$if(filter.listId !== undefined, (q) => q.where('list', '=', filter.listId!))
    .$if(filter.verificationStage !== undefined, (q) => q.where('verificationStage', '=', filter.verificationStage!));
  return newestFirst(kept, offset, limit);
}

/** Per-domain counts of the final results (the domains' running counts), largest domains first. */
export async function domainStats(em: EntityManager, jobId: string): Promise<DomainStat[]> {
  return kysely(em)
    .selectFrom('verification_domain')
    .select(['domain', 'emailCount as totalEmails', 'validCount', 'invalidCount', 'catchAllCount', 'unknownCount', 'isCatchAll'])
    .where('job', '=', jobId)
    .orderBy('seq')
    .execute();
}

/** The job's Catch-All results by score, every score 0–10 present; from the partial Catch-All index, unscored ones left out. */
export async function catchAllByScore(em: EntityManager, jobId: string): Promise<CatchAllBand[]> {
  const rows = await kysely(em)
    .selectFrom('verification_result')
    .select(['catchAllScore as score', sql<number>`count(*)::int`.as('n')])
    .where('job', '=', jobId)
    .where('result', '=', 'Catch-All')
    .where('catchAllScore', 'is not', null)
    .groupBy('catchAllScore')
    .execute();
  const counts = new Map(rows.map((r) => [Number(r.score), Number(r.n)]));
  return CATCH_ALL_SCORES.map((score) => ({ score, count: counts.get(score) ?? 0 }));
}

/** A result as RESULT_COLUMNS read it. */
type StoredResult = Pick<Selectable<Database['verification_result']>, (typeof RESULT_COLUMNS)[number]>;

export function toResultRow(r: StoredResult): ResultRow {
  const catchAll = r.result === 'Catch-All';
  return {
    email: r.email,
    result: r.result ?? null,
    source: r.source ?? null,
    reason: r.reason ?? null,
    domain: r.domain,
    mxHost: r.mxHost ?? null,
    mxProvider: r.mxProvider ?? null,
    mailboxProvider: r.mailboxProvider ?? null,
    mailboxProviderSignals: r.mailboxProviderSignals ?? [],
    catchAllScore: catchAll ? (r.catchAllScore ?? null) : null,
    catchAllReasons: catchAll ? (r.catchAllReasons ?? []) : [],
    directory: r.source === 'directory' && r.directoryResult != null ? { ifExistsResult: Number(r.directoryResult) } : null,
    smtpCode: r.smtpCode ?? null,
    enhancedCode: r.enhancedCode ?? null,
    attempts: r.attempts ?? 0,
    checkedAt: r.checkedAt ?? null,
  };
}

/** The columns toResultRow maps. */
export const RESULT_COLUMNS = [
  'email',
  'result',
  'source',
  'reason',
  'domain',
  'mxHost',
  'mxProvider',
  'mailboxProvider',
  'mailboxProviderSignals',
  'catchAllScore',
  'catchAllReasons',
  'directoryResult',
  'smtpCode',
  'enhancedCode',
  'attempts',
  'checkedAt',
] as const;

/**
 * A read that walks a job's results in address order and stops at a LIMIT: the (job_id, email) index
 * gives that order, so the first rows come at once however large the job. Without statistics (a table
 * just filled, not yet analyzed) the planner prefers a bitmap scan of the whole job and a sort, about
 * 0.5 s a page at 1,000,000 results instead of 1 ms; for this statement only, those plans are off.
 * Raw SQL: planner settings, which `set local` keeps to the read's own transaction.
 */
export const NO_BITMAP_SCAN_SQL = 'set local enable_bitmapscan = off';
/** See NO_BITMAP_SCAN_SQL. */
export const NO_SEQ_SCAN_SQL = 'set local enable_seqscan = off';

type Db = ReturnType<typeof kysely>;

async function inAddressOrder<T>(em: EntityManager, query: (db: Db) => { execute(): Promise<T[]> }): Promise<T[]> {
  return em.transactional(async (tx) => {
    await runSql(tx, NO_BITMAP_SCAN_SQL);
    await runSql(tx, NO_SEQ_SCAN_SQL);
    return query(kysely(tx)).execute();
  });
}

type DomainCount = 'emailCount' | 'processedCount' | 'deferredCount' | 'smtpValidCount' | 'smtpInvalidCount' | 'smtpCatchAllCount'
  | 'smtpUnknownCount' | 'validCount' | 'invalidCount' | 'catchAllCount' | 'unknownCount' | 'apiValidCount' | 'apiInvalidCount'
  | 'apiCatchAllCount' | 'apiUnknownCount';

const RESULT_COUNT_COLUMN: Record<EmailResult, DomainCount> = {
  Valid: 'validCount',
  Invalid: 'invalidCount',
  'Catch-All': 'catchAllCount',
  Unknown: 'unknownCount',
};

/**
 * Which results a read keeps: the result types (all when absent), and a score range for the Catch-All ones. A score
 * range without result types keeps only Catch-All results within it; with them (`Valid,Catch-All`, maxScore 4) it
 * bounds the Catch-All ones and keeps the other types whole.
 */
export interface ResultFilter {
  results?: readonly EmailResult[] | undefined;
  minScore?: number | undefined;
  maxScore?: number | undefined;
}

const scoreBounded = (f: ResultFilter) => f.minScore !== undefined || f.maxScore !== undefined;

/** The job's results the filter keeps. */
const keptResults = (db: Db, jobId: string, f: ResultFilter) =>
  db
    .selectFrom('verification_result')
    .where('job', '=', jobId)
    .$if(f.results !== undefined, (q) => q.where('result', 'in', [...f.results!]))
    .$if(scoreBounded(f), (q) =>
      q.where((eb) => {
        const inRange = eb.between('catchAllScore', f.minScore ?? 0, f.maxScore ?? CATCH_ALL_MAX_SCORE);
        return f.results ? eb.or([eb('result', '<>', 'Catch-All'), inRange]) : eb.and([eb('result', '=', 'Catch-All'), inRange]);
      }),
    );

/** How many results the filter keeps: the domains' running counts, or the Catch-All score index for a score range. */
async function countResults(em: EntityManager, jobId: string, f: ResultFilter): Promise<number> {
  const db = kysely(em);
  if (scoreBounded(f)) {
    const row = await keptResults(db, jobId, f).select(sql<number>`count(*)::int`.as('n')).executeTakeFirst();
    return Number(row?.n ?? 0);
  }
  const counted = f.results ? f.results.map((r) => RESULT_COUNT_COLUMN[r]) : (['emailCount'] as const);
  const count = await db
    .selectFrom('verification_domain')
    .select((eb) => sql<number>`coalesce(sum(${sql.join(counted.map((c) => eb.ref(c)), sql` + `)}), 0)::int`.as('n'))
    .where('job', '=', jobId)
    .executeTakeFirst();
  return Number(count?.n ?? 0);
}

/** A page of per-address results in address order, filtered. */
export async function pageVerificationResults(
  em: EntityManager,
  jobId: string,
  filter: ResultFilter,
  offset: number,
  limit: number,
) {
  const total = await countResults(em, jobId, filter);
  const rows = await inAddressOrder(em, (db) => keptResults(db, jobId, filter).select(RESULT_COLUMNS).orderBy('email').limit(limit).offset(offset));
  return { rows: rows.map(toResultRow), total };
}

/** Every result of a job in address order, read page by page (keyset) so a large job never sits in memory. */
export async function* allVerificationResults(
  em: EntityManager,
  jobId: string,
  filter: ResultFilter,
  pageSize = 2000,
): AsyncGenerator<ResultRow[]> {
  let after = '';
  for (;;) {
    const rows = await inAddressOrder(em, (db) =>
      keptResults(db, jobId, filter).where('email', '>', after).select(RESULT_COLUMNS).orderBy('email').limit(pageSize),
    );
    if (rows.length === 0) return;
    yield rows.map(toResultRow);
    after = rows[rows.length - 1]!.email;
    if (rows.length < pageSize) return;
  }
}

/** The lead columns a results download may append (CONTRACT §15), from the first lead of the list holding each address. */
export interface ResultLeadColumns {
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  title: string | null;
  networkUrl: string | null;
  phone: string | null;
}

/** A page of results' leads, through the (list_id, email_key) index: one lookup per address of the page. */
export async function leadColumnsOf(em: EntityManager, listId: string, emails: string[]): Promise<Map<string, ResultLeadColumns>> {
  if (emails.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('lead')
    .distinctOn('emailKey')
    .select(['emailKey as email', 'firstName', 'lastName', 'company', 'title', 'networkUrl', 'phone'])
    .where('list', '=', listId)
    .where('emailKey', 'in', emails)
    .orderBy('emailKey')
    .orderBy('id')
    .execute();
  return new Map(rows.map(({ email, ...columns }) => [email!, columns]));
}
