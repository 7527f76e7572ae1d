import type { MxProvider } from '../domain/mx-provider.ts';
import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { EmailResult } from '../domain/lead.ts';
import { CATCH_ALL_MAX_SCORE, CATCH_ALL_SCORES, type CatchAllReason, type MailboxSignal } from '../domain/catch-all.ts';
import {
  ACTIVE_STAGES,
  type FinalCounts,
  type ResultSource,
  type VerificationMethod,
  type VerificationStage,
} from '../domain/verification.ts';
import { ApiError, notFound } from '../errors.ts';
import { VerificationJob } from '../db/entities/index.ts';
import type { IVerificationJob } from '../db/entities/verification-job.ts';
import { countJobDomains, FIRST_RANGE_ADDRESSES, writeSnapshotRange } from './repository-snapshot.ts';
import type { DomainStat } from './views.ts';

/** Everything the job's read routes show that is aggregated from its result and spend rows. */
export interface VerificationJobCounts {
  processed: number;
  /** Addresses waiting for a later greylisting attempt. */
  deferred: number;
  smtp: Record<EmailResult, number>;
  final: FinalCounts;
  api: Record<EmailResult, number> & { verified: number; costMicros: number };
  lastCheckedAt: Date | null;
}

export interface VerificationJobView {
  job: IVerificationJob;
  listName: string;
  counts: VerificationJobCounts;
}

const emptyCounts = (total: number): VerificationJobCounts => ({
  processed: 0,
  deferred: 0,
  smtp: { Valid: 0, Invalid: 0, 'Catch-All': 0, Unknown: 0 },
  final: { total, valid: 0, invalid: 0, catchAll: 0, unknown: 0 },
  api: { Valid: 0, Invalid: 0, 'Catch-All': 0, Unknown: 0, verified: 0, costMicros: 0 },
  lastCheckedAt: null,
});

/**
 * A new job in `smtp_verifying` with the list's distinct addresses counted by domain and the first range of them
 * written (repository-snapshot.ts; the workflow writes the rest while the first are probed). The list row is locked
 * first, so two concurrent creations for one list serialize and the second sees the first's job.
 */
export async function createVerificationJob(
  em: EntityManager,
  organizationId: string,
  listId: string,
  method: VerificationMethod,
): Promise<VerificationJobView> {
  return em.transactional(async (tx) => {
    const [list] = await tx.execute(
      `select id, name from lead_list where id = ? and organization_id = ? for update`,
      [listId, organizationId],
    );
    if (!list) throw notFound('List');
    const [active] = await tx.execute(
      `select id, verification_stage from verification_job where list_id = ? and verification_stage in (?) limit 1`,
      [listId, [...ACTIVE_STAGES]],
    );
    if (active) {
      throw new ApiError('invalid_state', 'The list already has a verification job in progress', {
        currentState: active.verification_stage,
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
      smtpCompletedAt: null,
      userDecision: null,
      catchAllMaxScore: null,
      decisionMadeAt: null,
      completedAt: null,
      failureReason: null,
      warnings: [],
    });
    await tx.flush();

    const total = await countJobDomains(tx, job.id, listId);
    if (total === 0) {
      throw new ApiError('unprocessable', 'The list has no lead with an email address', { reason: 'no_emails' });
    }
    const first = await writeSnapshotRange(tx, job.id, listId, 0, FIRST_RANGE_ADDRESSES);
    job.snapshotSeq = first.snapshotSeq;
    job.totalEmails = total + first.drift;
    await tx.flush();
    // Nothing has been checked yet: the counts are zero by construction, whatever the worker does next.
    return { job, listName: list.name as string, counts: emptyCounts(job.totalEmails) };
  });
}

/** Removes a job whose workflow could not be started, so the list is free again. */
export async function deleteVerificationJob(em: EntityManager, jobId: string) {
  await em.nativeDelete(VerificationJob, { id: jobId });
}

export async function getVerificationJob(
  em: EntityManager,
  organizationId: string,
  jobId: string,
): Promise<IVerificationJob> {
  const job = await em.findOne(
    VerificationJob,
    { id: jobId, organization: organizationId },
    { refresh: true },
  );
  if (!job) throw notFound('Verification job');
  return job;
}

/**
 * Aggregates of the given jobs: the sums of their domains' running counts (kept by a trigger, see
 * VerificationDomain) and of their spend, so the cost is the jobs' domains, not their results.
 */
export async function verificationJobCounts(
  em: EntityManager,
  jobs: IVerificationJob[],
): Promise<Map<string, VerificationJobCounts>> {
  const out = new Map(jobs.map((j) => [j.id, emptyCounts(j.totalEmails)]));
  if (jobs.length === 0) return out;
  const ids = jobs.map((j) => j.id);
  const rows = await em.execute(
    `select job_id,
       sum(processed_count)::int as processed, sum(deferred_count)::int as deferred,
       sum(smtp_valid_count)::int as smtp_valid, sum(smtp_invalid_count)::int as smtp_invalid,
       sum(smtp_catch_all_count)::int as smtp_catch_all, sum(smtp_unknown_count)::int as smtp_unknown,
       sum(valid_count)::int as valid, sum(invalid_count)::int as invalid,
       sum(catch_all_count)::int as catch_all, sum(unknown_count)::int as unknown,
       sum(api_valid_count)::int as api_valid, sum(api_invalid_count)::int as api_invalid,
       sum(api_catch_all_count)::int as api_catch_all, sum(api_unknown_count)::int as api_unknown,
       max(last_checked_at) as last_checked_at
     from verification_domain where job_id in (?) group by job_id`,
    [ids],
  );
  const spend = await em.execute(
    `select job_id, coalesce(sum(amount_micros), 0)::bigint as micros from verification_spend where job_id in (?) group by job_id`,
    [ids],
  );
  const micros = new Map(spend.map((s) => [s.job_id as string, Number(s.micros)]));
  for (const r of rows) {
    const counts = out.get(r.job_id);
    if (!counts) continue;
    counts.processed = r.processed;
    counts.deferred = r.deferred;
    counts.smtp = {
      Valid: r.smtp_valid,
      Invalid: r.smtp_invalid,
      'Catch-All': r.smtp_catch_all,
      Unknown: r.smtp_unknown,
    };
    counts.final = {
      total: counts.final.total,
      valid: r.valid,
      invalid: r.invalid,
      catchAll: r.catch_all,
      unknown: r.unknown,
    };
    counts.api = {
      Valid: r.api_valid,
      Invalid: r.api_invalid,
      'Catch-All': r.api_catch_all,
      Unknown: r.api_unknown,
      verified: r.api_valid + r.api_invalid + r.api_catch_all + r.api_unknown,
      costMicros: micros.get(r.job_id) ?? 0,
    };
    counts.lastCheckedAt = r.last_checked_at ? new Date(r.last_checked_at) : null;
  }
  return out;
}

async function listNames(em: EntityManager, listIds: string[]): Promise<Map<string, string>> {
  if (listIds.length === 0) return new Map();
  const rows = await em.execute(`select id, name from lead_list where id in (?)`, [[...new Set(listIds)]]);
  return new Map(rows.map((r) => [r.id as string, r.name as string]));
}

const listIdOf = (job: IVerificationJob) => (typeof job.list === 'string' ? job.list : job.list.id);

export async function viewVerificationJobs(
  em: EntityManager,
  jobs: IVerificationJob[],
): Promise<VerificationJobView[]> {
  const [counts, names] = await Promise.all([
    verificationJobCounts(em, jobs),
    listNames(em, jobs.map(listIdOf)),
  ]);
  return jobs.map((job) => ({
    job,
    listName: names.get(listIdOf(job)) ?? '',
    counts: counts.get(job.id) ?? emptyCounts(job.totalEmails),
  }));
}

export async function viewVerificationJob(
  em: EntityManager,
  organizationId: string,
  jobId: string,
): Promise<VerificationJobView> {
  const [view] = await viewVerificationJobs(em, [await getVerificationJob(em, organizationId, jobId)]);
  return view!;
}

export interface JobFilter {
  listId?: string;
  verificationStage?: VerificationStage;
}

export async function pageVerificationJobs(
  em: EntityManager,
  organizationId: string,
  filter: JobFilter,
  offset: number,
  limit: number,
) {
  const where: FilterQuery<IVerificationJob> = { organization: organizationId };
  if (filter.listId) where.list = filter.listId;
  if (filter.verificationStage) where.verificationStage = filter.verificationStage;
  const [rows, total] = await em.findAndCount(VerificationJob, where, {
    orderBy: { id: 'desc' },
    offset,
    limit,
  });
  return { rows, total };
}

/** Per-domain counts of the final results (the domains' running counts), largest domains first. */
export async function domainStats(em: EntityManager, jobId: string): Promise<DomainStat[]> {
  const rows = await em.execute(
    `select domain, email_count, is_catch_all, valid_count as valid, invalid_count as invalid,
       catch_all_count as catch_all, unknown_count as unknown
     from verification_domain where job_id = ? order by seq`,
    [jobId],
  );
  return rows.map((r) => ({
    domain: r.domain,
    totalEmails: r.email_count,
    validCount: r.valid,
    invalidCount: r.invalid,
    catchAllCount: r.catch_all,
    unknownCount: r.unknown,
    isCatchAll: r.is_catch_all,
  }));
}

export interface CatchAllBand {
  score: number;
  count: number;
}

/** The job's Catch-All results by score, every score 0–10 present; from the partial Catch-All index, unscored ones left out. */
export async function catchAllByScore(em: EntityManager, jobId: string): Promise<CatchAllBand[]> {
  const rows = await em.execute(
    `select catch_all_score as score, count(*)::int as n from verification_result
     where job_id = ? and result = 'Catch-All' and catch_all_score is not null group by catch_all_score`,
    [jobId],
  );
  const counts = new Map(rows.map((r) => [Number(r.score), Number(r.n)]));
  return CATCH_ALL_SCORES.map((score) => ({ score, count: counts.get(score) ?? 0 }));
}

export interface ResultRow {
  email: string;
  result: EmailResult | null;
  source: ResultSource | null;
  reason: string | null;
  domain: string;
  mxHost: string | null;
  mxProvider: MxProvider | null;
  mailboxProvider: MxProvider | null;
  mailboxProviderSignals: MailboxSignal[];
  /** Only on a Catch-All result (CONTRACT §12); null and [] on every other. */
  catchAllScore: number | null;
  catchAllReasons: CatchAllReason[];
  /** The directory's answer when it decided the address. */
  directory: { ifExistsResult: number } | null;
  smtpCode: number | null;
  enhancedCode: string | null;
  attempts: number;
  checkedAt: Date | null;
}

export function toResultRow(r: Record<string, unknown>): ResultRow {
  const result = (r.result as EmailResult | null) ?? null;
  const catchAll = result === 'Catch-All';
  return {
    email: r.email as string,
    result,
    source: (r.source as ResultRow['source']) ?? null,
    reason: (r.reason as string | null) ?? null,
    domain: r.domain as string,
    mxHost: (r.mx_host as string | null) ?? null,
    mxProvider: (r.mx_provider as MxProvider | null) ?? null,
    mailboxProvider: (r.mailbox_provider as MxProvider | null) ?? null,
    mailboxProviderSignals: (r.mailbox_provider_signals as MailboxSignal[] | null) ?? [],
    catchAllScore: catchAll ? ((r.catch_all_score as number | null) ?? null) : null,
    catchAllReasons: catchAll ? ((r.catch_all_reasons as CatchAllReason[] | null) ?? []) : [],
    directory:
      r.source === 'directory' && r.directory_result !== null && r.directory_result !== undefined
        ? { ifExistsResult: Number(r.directory_result) }
        : null,
    smtpCode: (r.smtp_code as number | null) ?? null,
    enhancedCode: (r.enhanced_code as string | null) ?? null,
    attempts: Number(r.attempts ?? 0),
    checkedAt: r.checked_at ? new Date(r.checked_at as string) : null,
  };
}

export const RESULT_COLUMNS =
  'email, result, source, reason, domain, mx_host, mx_provider, mailbox_provider, mailbox_provider_signals, catch_all_score, catch_all_reasons, directory_result, smtp_code, enhanced_code, attempts, checked_at';

/**
 * A read that walks a job's results in address order and stops at a LIMIT: the (job_id, email) index
 * gives that order, so the first rows come at once however large the job. Without statistics (a table
 * just filled, not yet analyzed) the planner prefers a bitmap scan of the whole job and a sort, about
 * 0.5 s a page at 1,000,000 results instead of 1 ms; for this statement only, those plans are off.
 */
async function inAddressOrder(em: EntityManager, query: string, params: unknown[]) {
  return em.transactional(async (tx) => {
    await tx.execute('set local enable_bitmapscan = off');
    await tx.execute('set local enable_seqscan = off');
    return tx.execute(query, params);
  });
}

const RESULT_COUNT_COLUMN: Record<EmailResult, string> = {
  Valid: 'valid_count',
  Invalid: 'invalid_count',
  'Catch-All': 'catch_all_count',
  Unknown: 'unknown_count',
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

/** The filter as SQL conditions (after `job_id = ?`) and their parameters. */
function resultConditions(f: ResultFilter): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.results) {
    parts.push('result in (?)');
    params.push([...f.results]);
  }
  if (scoreBounded(f)) {
    parts.push(`${f.results ? `(result <> 'Catch-All' or` : `(result = 'Catch-All' and`} catch_all_score between ? and ?)`);
    params.push(f.minScore ?? 0, f.maxScore ?? CATCH_ALL_MAX_SCORE);
  }
  return { sql: parts.map((p) => ` and ${p}`).join(''), params };
}

/** How many results the filter keeps: the domains' running counts, or the Catch-All score index for a score range. */
async function countResults(em: EntityManager, jobId: string, f: ResultFilter): Promise<number> {
  if (scoreBounded(f)) {
    const { sql, params } = resultConditions(f);
    const [row] = await em.execute(`select count(*)::int as n from verification_result where job_id = ?${sql}`, [jobId, ...params]);
    return Number(row?.n ?? 0);
  }
  const [count] = await em.execute(
    `select coalesce(sum(${f.results ? f.results.map((r) => RESULT_COUNT_COLUMN[r]).join(' + ') : 'email_count'}), 0)::int as n from verification_domain where job_id = ?`,
    [jobId],
  );
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
  const { sql, params } = resultConditions(filter);
  const total = await countResults(em, jobId, filter);
  const rows = await inAddressOrder(
    em,
    `select ${RESULT_COLUMNS} from verification_result
     where job_id = ?${sql} order by email limit ? offset ?`,
    [jobId, ...params, limit, offset],
  );
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
  const { sql, params } = resultConditions(filter);
  for (;;) {
    const rows = await inAddressOrder(
      em,
      `select ${RESULT_COLUMNS} from verification_result
       where job_id = ? and email > ?${sql} order by email limit ?`,
      [jobId, after, ...params, pageSize],
    );
    if (rows.length === 0) return;
    yield rows.map(toResultRow);
    after = rows[rows.length - 1]!.email as string;
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
  const rows = await em.execute<Array<ResultLeadColumns & { email: string }>>(
    `select distinct on (email_key) email_key as email, first_name as "firstName", last_name as "lastName", company, title,
            network_url as "networkUrl", phone
       from lead where list_id = ? and email_key in (?)
      order by email_key, id`,
    [listId, emails],
  );
  return new Map(rows.map(({ email, ...columns }) => [email, columns]));
}
