import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmailResult } from '../domain/lead.ts';
import type { MailboxSignal } from '../domain/catch-all.ts';
import type { MxProvider } from '../domain/mx-provider.ts';
import type { AttemptTranscript } from '../domain/smtp-transcript.ts';
import {
  type DecisionChoice,
  type DecisionResult,
  takesCatchAllBound,
  gapResultsFor,
  type JobWarning,
  stageAfterDecision,
  stageAfterSmtp,
  type VerificationMethod,
  type VerificationStage,
} from '../domain/verification.ts';
import { sql } from 'kysely';
import { JobGoneError } from '../errors.ts';
import { kysely } from '../db/kysely.ts';
import { newId } from '../db/entities/common.ts';
import { SCORE_WEIGHTS } from '../domain/catch-all-score.ts';
import { recordDeferred, settleDeferred } from './repository-deferred.ts';
import { WRITE_BATCH_TO_LEADS } from './repository-write-back.ts';
import { storedTranscript, writeSmtpSessions } from './repository-transcript.ts';
import { runSql } from '../db/run-sql.ts';

export interface VerificationWork {
  id: string;
  organizationId: string;
  listId: string;
  method: VerificationMethod;
  stage: VerificationStage;
}

export async function loadVerificationWork(em: EntityManager, jobId: string, lock = false): Promise<VerificationWork> {
  const row = await kysely(em)
    .selectFrom('verification_job')
    .select(['id', 'organization', 'list', 'verificationMethod', 'verificationStage'])
    .where('id', '=', jobId)
    .$if(lock, (q) => q.forUpdate())
    .executeTakeFirst();
  if (!row) throw new JobGoneError('verification', jobId);
  return {
    id: row.id,
    organizationId: row.organization,
    listId: row.list,
    method: row.verificationMethod,
    stage: row.verificationStage,
  };
}

/**
 * The SMTP stage's extent: how many domains and addresses the job has counted (`counting` while the domains after
 * the first range are still to count), and the last domain whose addresses are written (all, once the snapshot is).
 */
export async function smtpStageExtent(
  em: EntityManager,
  jobId: string,
): Promise<{ domainCount: number; counting: boolean; writtenSeq: number; totalEmails: number }> {
  const row = await kysely(em)
    .selectFrom('verification_job as j')
    .select((eb) => [
      eb.selectFrom('verification_domain').select(sql<number>`count(*)::int`.as('n')).whereRef('job', '=', 'j.id').as('n'),
      'j.snapshotSeq',
      'j.domainsCounted',
      'j.totalEmails',
    ])
    .where('j.id', '=', jobId)
    .executeTakeFirst();
  const domainCount = Number(row?.n ?? 0);
  return {
    domainCount,
    counting: row?.domainsCounted === false,
    writtenSeq: row?.snapshotSeq ?? domainCount,
    totalEmails: row?.totalEmails ?? 0,
  };
}

export interface WorkDomain {
  domain: string;
  isCatchAll: boolean | null;
  /** The MX host an earlier page or attempt used, null when none did. */
  mxHost: string | null;
  /** The domain's distinct addresses in the job (answered ones included, after a retry). */
  emailCount: number;
}

/** Domains numbered fromSeq..toSeq whose SMTP work is not finished. */
export async function unfinishedDomains(
  em: EntityManager,
  jobId: string,
  fromSeq: number,
  toSeq: number,
): Promise<WorkDomain[]> {
  return kysely(em)
    .selectFrom('verification_domain')
    .select(['domain', 'isCatchAll', 'mxHost', 'emailCount'])
    .where('job', '=', jobId)
    .where((eb) => eb.between('seq', fromSeq, toSeq))
    .where('smtpDoneAt', 'is', null)
    .orderBy('seq')
    .execute();
}

/*
 * The two address reads of the SMTP stage (every address of a job passes through one of them) are plain SQL on
 * the untyped builder: the typed builder's row mapping walks every property of verification_result for each
 * row, about 60 µs a row, which was the largest single cost of the worker's event loop during a flat job.
 */

/** The next page of a domain's addresses without an SMTP-stage result, after `afterId`. */
export async function unprobedAddresses(
  em: EntityManager,
  jobId: string,
  domain: string,
  afterId: string | null,
  limit: number,
): Promise<Array<{ id: string; email: string }>> {
  const { rows } = await sql<{ id: string; email: string }>`
    select id, email from verification_result
     where job_id = ${jobId} and domain = ${domain} and smtp_checked_at is null and id > ${afterId ?? '00000000-0000-0000-0000-000000000000'}
     order by id limit ${limit}`.execute(em.getKysely());
  return rows;
}

/** The first `limit` unprobed addresses of each given domain, in one query. */
export async function firstUnprobedPages(em: EntityManager, jobId: string, domains: string[], limit: number) {
  const pages = new Map<string, Array<{ id: string; email: string }>>(domains.map((d) => [d, []]));
  if (domains.length === 0) return pages;
  const { rows } = await sql<{ domain: string; id: string; email: string }>`
    select domain, id, email from (
      select domain, id, email, row_number() over (partition by domain order by id) as n from verification_result
       where job_id = ${jobId} and domain = any(${domains}::text[]) and smtp_checked_at is null
    ) page
     where n <= ${limit} order by domain, id`.execute(em.getKysely());
  for (const r of rows) pages.get(r.domain)?.push({ id: r.id, email: r.email });
  return pages;
}

/** What the SMTP stage concluded for one address; `result: null` with `apiPending` for api_only pre-check passes. */
export interface SmtpOutcomeRow {
  id: string;
  result: EmailResult | null;
  source: 'precheck' | 'smtp';
  reason: string | null;
  mxHost: string | null;
  mxProvider: MxProvider | null;
  mailboxProvider: MxProvider | null;
  mailboxProviderSignals: MailboxSignal[];
  /** Evidence of the SMTP answer (CONTRACT §10); absent when no SMTP was attempted. */
  smtpCode?: number | null;
  enhancedCode?: string | null;
  attempts?: number;
  /** This pass's attempts, appended to what earlier passes stored. */
  transcript?: AttemptTranscript[];
  apiPending: boolean;
  /** Still answered with a 4xx after its attempts: stored as deferred (no result yet) instead. */
  deferral?: { attempts: number; reply: string };
}

/**
 * Stores a batch of SMTP outcomes and writes the final ones onto the list's leads in one statement.
 * Parameters: the outcomes as JSON, the job id.
 */
export const STORE_SMTP_BATCH_SQL = `with stored as (
       update verification_result r set
         smtp_result = v.result, result = v.result, source = v.source, reason = v.reason, mx_host = v.mx_host, mx_provider = v.mx_provider,
         mailbox_provider = v.mailbox_provider, mailbox_provider_signals = v.mailbox_provider_signals,
         -- An address deferred earlier counts those attempts too.
         smtp_code = v.smtp_code, enhanced_code = v.enhanced_code, attempts = coalesce(r.deferred_attempts, 0) + v.attempts,
         transcript = r.transcript || v.transcript,
         api_status = case when v.api_pending then 'pending' end,
         smtp_checked_at = now(), checked_at = case when v.result is null then null else now() end
       from jsonb_to_recordset(?::jsonb) as v(id uuid, result text, source text, reason text, mx_host text, mx_provider text, mailbox_provider text, mailbox_provider_signals jsonb, smtp_code int, enhanced_code text, attempts int, transcript jsonb, api_pending boolean)
       where r.id = v.id and r.smtp_checked_at is null
       returning r.email, r.result, r.checked_at
     ), ${WRITE_BATCH_TO_LEADS}
     select count(*)::int as written from stored`;

/**
 * Stores SMTP-stage outcomes: the sessions their transcripts name, the deferred ones and the final
 * ones, one statement each. Only addresses without an SMTP-stage result are touched, so a retried
 * batch never overwrites (or double-counts) what an earlier attempt stored.
 */
export async function writeSmtpOutcomes(em: EntityManager, jobId: string, outcomes: SmtpOutcomeRow[]): Promise<number> {
  await writeSmtpSessions(em, jobId, outcomes.flatMap((r) => r.transcript ?? []));
  const rows = outcomes.filter((r) => !r.deferral);
  await recordDeferred(
    em,
    outcomes.flatMap((r) =>
      r.deferral
        ? [{
            id: r.id,
            mxHost: r.mxHost,
            mxProvider: r.mxProvider,
            smtpCode: r.smtpCode ?? null,
            enhancedCode: r.enhancedCode ?? null,
            transcript: storedTranscript(r.transcript ?? []),
            ...r.deferral,
          }]
        : [],
    ),
  );
  if (rows.length === 0) return 0;
  const payload = rows.map((r) => ({
    id: r.id,
    result: r.result,
    source: r.result ? r.source : null,
    reason: r.reason,
    mx_host: r.mxHost,
    mx_provider: r.mxProvider,
    mailbox_provider: r.mailboxProvider,
    mailbox_provider_signals: r.mailboxProviderSignals,
    smtp_code: r.smtpCode ?? null,
    enhanced_code: r.enhancedCode ?? null,
    attempts: r.attempts ?? 0,
    transcript: storedTranscript(r.transcript ?? []),
    api_pending: r.apiPending,
  }));
  // The results reach the leads in the same statement that stores them: nothing is left for the end
  // of the stage, and the lead lookups are bounded by the batch (see WRITE_BATCH_TO_LEADS).
  const [row] = await runSql(em, STORE_SMTP_BATCH_SQL, [JSON.stringify(payload), jobId]);
  return Number(row?.written ?? 0);
}

export interface DomainVerdict {
  domain: string;
  isCatchAll: boolean | null;
  mxHost: string | null;
  /** Every address of the domain has its SMTP-stage outcome stored. */
  done: boolean;
}

/**
 * Stores domain verdicts in one statement; a known catch-all verdict or MX host is never replaced by null.
 * Raw SQL: an update joined to the batch as a JSON recordset, each domain keeping what it already knows.
 * Parameters: the verdicts as JSON, the job id.
 */
export const UPDATE_DOMAINS_SQL = `
  update verification_domain d set is_catch_all = coalesce(v.is_catch_all, d.is_catch_all), mx_host = coalesce(v.mx_host, d.mx_host),
    smtp_done_at = case when v.done then coalesce(d.smtp_done_at, now()) else d.smtp_done_at end
  from jsonb_to_recordset(?::jsonb) as v(domain text, is_catch_all boolean, mx_host text, done boolean)
  where d.job_id = ? and d.domain = v.domain`;

export async function updateDomains(em: EntityManager, jobId: string, verdicts: DomainVerdict[]) {
  if (verdicts.length === 0) return;
  // An UPDATE ... FROM applies one arbitrary match per row, so each domain must appear once.
  const merged = new Map<string, DomainVerdict>();
  for (const v of verdicts) {
    const prev = merged.get(v.domain);
    merged.set(
      v.domain,
      prev
        ? {
            domain: v.domain,
            isCatchAll: v.isCatchAll ?? prev.isCatchAll,
            mxHost: v.mxHost ?? prev.mxHost,
            done: v.done || prev.done,
          }
        : v,
    );
  }
  const payload = [...merged.values()].map((v) => ({
    domain: v.domain,
    is_catch_all: v.isCatchAll,
    mx_host: v.mxHost,
    done: v.done,
  }));
  await runSql(em, UPDATE_DOMAINS_SQL, [JSON.stringify(payload), jobId]);
}

/**
 * What decides the stage after SMTP, as far as the job's method needs it: the gaps (Unknown, Catch-All) from the
 * domains' running counts, whether any address waits for the provider from the first one found. Neither reads
 * every result of the job.
 */
async function smtpStageLeftovers(em: EntityManager, job: VerificationWork): Promise<{ pendingForApi: number; gaps: number }> {
  const db = kysely(em);
  if (job.method === 'api_only') {
    const pending = await db.selectFrom('verification_result').select('id').where('job', '=', job.id).where('apiStatus', '=', 'pending').limit(1).execute();
    return { pendingForApi: pending.length, gaps: 0 };
  }
  if (job.method === 'smtp_only') return { pendingForApi: 0, gaps: 0 };
  const row = await db
    .selectFrom('verification_domain')
    .select((eb) => eb.cast<number>(eb.fn.coalesce(eb.fn.sum(eb('unknownCount', '+', eb.ref('catchAllCount'))), sql.lit(0)), 'integer').as('gaps'))
    .where('job', '=', job.id)
    .executeTakeFirst();
  return { pendingForApi: 0, gaps: Number(row?.gaps ?? 0) };
}

/**
 * Ends the SMTP stage: `completed` for smtp_only, `awaiting_decision` for smtp_api_fallback when gaps
 * exist, `api_verifying` for api_only when pre-checks passed anything. Idempotent: a retry after the
 * move returns the stage already stored.
 */
export async function finishSmtpStage(em: EntityManager, jobId: string): Promise<VerificationStage> {
  return em.transactional(async (tx) => {
    const job = await loadVerificationWork(tx, jobId, true);
    if (job.stage !== 'smtp_verifying') return job.stage;
    await settleDeferred(tx, jobId);
    const db = kysely(tx);
    const next = stageAfterSmtp(job.method, await smtpStageLeftovers(tx, job));
    // Last statement before the commit: the stamps are (within microseconds) the commit time of
    // the state they describe, not the time the transaction began.
    await db
      .updateTable('verification_job')
      .set({
        verificationStage: next,
        smtpCompletedAt: sql<Date>`clock_timestamp()`,
        deferredRetryAt: null,
        completedAt: next === 'completed' ? sql<Date>`clock_timestamp()` : null,
        updatedAt: sql<Date>`clock_timestamp()`,
      })
      .where('id', '=', jobId)
      .execute();
    return next;
  });
}

/**
 * Marks for the provider the job's Catch-All results scored at or below a bound (an unscored one is above
 * every bound: the estimate counts it in no band). Raw SQL so the statement names the partial Catch-All
 * index's condition (`result = 'Catch-All'`) and the planner can use it.
 */
export const MARK_SCORED_CATCH_ALL_SQL = `
  update verification_result set api_status = 'pending'
  where job_id = ? and result = 'Catch-All' and catch_all_score <= ? and smtp_result = 'Catch-All' and api_status is null`;

/**
 * Stores the decision and moves the job on in one transaction: the chosen gaps are marked for the
 * provider. Idempotent: once a decision is stored, it is returned unchanged.
 */
export async function recordDecision(
  em: EntityManager,
  jobId: string,
  { decision, catchAllMaxScore }: DecisionChoice,
): Promise<DecisionResult> {
  return em.transactional(async (tx) => {
    await loadVerificationWork(tx, jobId, true);
    const db = kysely(tx);
    const stored = await db
      .selectFrom('verification_job')
      .select(['verificationStage', 'userDecision', 'decisionMadeAt'])
      .where('id', '=', jobId)
      .executeTakeFirst();
    if (stored?.userDecision) {
      return {
        id: jobId,
        verificationStage: stored.verificationStage,
        userDecision: stored.userDecision,
        decisionMadeAt: new Date(stored.decisionMadeAt!).toISOString(),
      };
    }
    const next = stageAfterDecision(decision);
    const bound = takesCatchAllBound(decision) ? (catchAllMaxScore ?? null) : null;
    const updated = await db
      .updateTable('verification_job')
      .set({
        userDecision: decision,
        catchAllMaxScore: bound,
        decisionMadeAt: sql<Date>`now()`,
        verificationStage: next,
        completedAt: next === 'completed' ? sql<Date>`now()` : null,
        updatedAt: sql<Date>`now()`,
      })
      .where('id', '=', jobId)
      .returning('decisionMadeAt')
      .executeTakeFirst();
    const gaps = gapResultsFor(decision);
    const unbounded = bound === null ? gaps : gaps.filter((result) => result !== 'Catch-All');
    if (unbounded.length > 0) {
      await db
        .updateTable('verification_result')
        .set({ apiStatus: 'pending' })
        .where('job', '=', jobId)
        .where('smtpResult', 'in', unbounded)
        .where('apiStatus', 'is', null)
        .execute();
    }
    // The score-bounded Catch-All results: exactly those the estimate's catchAllByScore counts up to the bound.
    if (bound !== null) await runSql(tx, MARK_SCORED_CATCH_ALL_SQL, [jobId, bound]);
    return {
      id: jobId,
      verificationStage: next,
      userDecision: decision,
      decisionMadeAt: new Date(updated!.decisionMadeAt!).toISOString(),
    };
  });
}

export async function pendingApiAddresses(em: EntityManager, jobId: string, limit: number) {
  return kysely(em)
    .selectFrom('verification_result')
    .select(['id', 'email'])
    .where('job', '=', jobId)
    .where('apiStatus', '=', 'pending')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function pendingApiCount(em: EntityManager, jobId: string): Promise<number> {
  const row = await kysely(em)
    .selectFrom('verification_result')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('job', '=', jobId)
    .where('apiStatus', '=', 'pending')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export interface ApiVerdictRow {
  id: string;
  email: string;
  result: EmailResult;
  reason: string;
}

/**
 * A spend row per address of a provider batch, the unique (job, email) key skipping those already paid for. Raw SQL:
 * the batch travels as one JSON recordset. Parameters: the organization, the job, the provider, the price, the rows as JSON.
 */
export const RECORD_API_SPEND_SQL = `
  insert into verification_spend (id, organization_id, job_id, email, provider, amount_micros, created_at)
  select v.id, ?, ?, v.email, ?, ?, now() from jsonb_to_recordset(?::jsonb) as v(id uuid, email text)
  on conflict (job_id, email) do nothing`;

/**
 * Stores a provider batch's verdicts and writes them onto the list's leads in one statement. Raw SQL: an update joined
 * to the batch as a JSON recordset, feeding the leads' write-back (WRITE_BATCH_TO_LEADS) as a data-modifying CTE.
 * Parameters: the model's starting Catch-All score, the verdicts as JSON, the job id.
 */
export const STORE_API_BATCH_SQL = `with stored as (
       update verification_result r set result = v.result, source = 'api', reason = v.reason, checked_at = now(), api_status = 'done',
         -- A provider's Catch-All keeps the score the SMTP stage gave it, or gets the model's starting score (CONTRACT §12).
         catch_all_score = case when v.result = 'Catch-All' then coalesce(r.catch_all_score, ?) end,
         catch_all_reasons = case when v.result = 'Catch-All' and r.catch_all_score is null then '["domain_catch_all"]'::jsonb else r.catch_all_reasons end
       from jsonb_to_recordset(?::jsonb) as v(id uuid, result text, reason text)
       where r.id = v.id and r.api_status = 'pending'
       returning r.email, r.result, r.checked_at
     ), ${WRITE_BATCH_TO_LEADS}
     select count(*) from stored`;

/**
 * Records one provider batch: a spend row per address (the unique (job, email) key makes a repeated
 * batch cost nothing more) and the verdicts, in one transaction. Returns the spend rows inserted.
 */
export async function recordApiVerdicts(
  em: EntityManager,
  job: Pick<VerificationWork, 'id' | 'organizationId'>,
  rows: ApiVerdictRow[],
  provider: string,
  priceMicros: number,
): Promise<number> {
  if (rows.length === 0) return 0;
  return em.transactional(async (tx) => {
    const spend = await runSql(
      tx,
      RECORD_API_SPEND_SQL,
      [
        job.organizationId,
        job.id,
        provider,
        priceMicros,
        JSON.stringify(rows.map((r) => ({ id: newId(), email: r.email }))),
      ],
    );
    await runSql(
      tx,
      STORE_API_BATCH_SQL,
      [SCORE_WEIGHTS.base, JSON.stringify(rows.map((r) => ({ id: r.id, result: r.result, reason: r.reason }))), job.id],
    );
    return spend.affected;
  });
}

/** api_verifying → completed, with the provider's results copied onto the leads. */
export async function completeVerificationJob(em: EntityManager, jobId: string) {
  await em.transactional(async (tx) => {
    const job = await loadVerificationWork(tx, jobId, true);
    if (job.stage === 'api_verifying') {
      await kysely(tx)
        .updateTable('verification_job')
        .set({ verificationStage: 'completed', completedAt: sql<Date>`clock_timestamp()`, updatedAt: sql<Date>`clock_timestamp()` })
        .where('id', '=', jobId)
        .execute();
    }
  });
}

/** Ends the job in `failed` with a reason; results obtained so far still reach the leads. */
export async function failVerificationJob(em: EntityManager, jobId: string, reason: string) {
  await em.transactional(async (tx) => {
    const job = await loadVerificationWork(tx, jobId, true);
    if (job.stage === 'completed' || job.stage === 'failed') return;
    await kysely(tx)
      .updateTable('verification_job')
      .set({ verificationStage: 'failed', failureReason: reason, updatedAt: sql<Date>`clock_timestamp()` })
      .where('id', '=', jobId)
      .execute();
  });
}

/**
 * Adds warnings to the job's list, each code once however many slices saw it. Raw SQL: the new warnings are merged
 * into the stored JSON array in the statement, so concurrent slices never lose each other's.
 * Parameters: the warnings as JSON, the job id.
 */
export const ADD_JOB_WARNINGS_SQL = `
  update verification_job j set warnings = j.warnings || coalesce(
    (select jsonb_agg(w) from jsonb_array_elements(?::jsonb) w
      where not exists (select 1 from jsonb_array_elements(j.warnings) o where o->>'code' = w->>'code')), '[]'::jsonb)
  where id = ?`;

export async function addJobWarnings(em: EntityManager, jobId: string, warnings: JobWarning[]): Promise<void> {
  await runSql(em, ADD_JOB_WARNINGS_SQL, [JSON.stringify(warnings), jobId]);
}
