import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../db/kysely.ts';
import type { MxProvider } from '../domain/mx-provider.ts';
import type { StoredAttempt } from '../db/entities/verification-result.ts';
import { WRITE_BATCH_TO_LEADS } from './repository-write-back.ts';
import { runSql } from '../db/run-sql.ts';

/**
 * Addresses still answered with a 4xx (greylisting) after their SMTP attempts wait, stored on their
 * result row: `deferred_since` set, `smtp_checked_at` still null, so they count as neither
 * processed nor final. The workflow only learns how many there are.
 */
export interface DeferredRow {
  id: string;
  mxHost: string | null;
  mxProvider: MxProvider | null;
  /** SMTP attempts made in this pass, all answered with a 4xx. */
  attempts: number;
  /** The last 4xx reply, e.g. `451 4.7.1 Greylisted`, and its codes. */
  reply: string;
  smtpCode: number | null;
  enhancedCode: string | null;
  /** This pass's attempts, appended to the stored ones. */
  transcript: StoredAttempt[];
}

/**
 * Marks a batch of addresses deferred (or adds this pass's attempts) in one statement; addresses with a final result
 * are untouched. Raw SQL: an update joined to the batch as a JSON recordset, each row keeping its own counts.
 */
export const RECORD_DEFERRED_SQL = `
  update verification_result r set deferred_since = coalesce(r.deferred_since, now()),
    deferred_attempts = coalesce(r.deferred_attempts, 0) + v.attempts, deferred_reply = v.reply,
    attempts = coalesce(r.deferred_attempts, 0) + v.attempts, smtp_code = v.smtp_code, enhanced_code = v.enhanced_code,
    mx_host = v.mx_host, mx_provider = v.mx_provider, transcript = r.transcript || v.transcript
  from jsonb_to_recordset(?::jsonb) as v(id uuid, mx_host text, mx_provider text, attempts int, reply text, smtp_code int, enhanced_code text, transcript jsonb)
  where r.id = v.id and r.smtp_checked_at is null`;

export async function recordDeferred(em: EntityManager, rows: DeferredRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const payload = rows.map((r) => ({
    id: r.id,
    mx_host: r.mxHost,
    mx_provider: r.mxProvider,
    attempts: r.attempts,
    reply: r.reply,
    smtp_code: r.smtpCode,
    enhanced_code: r.enhancedCode,
    transcript: r.transcript,
  }));
  const res = await runSql(em, RECORD_DEFERRED_SQL, [JSON.stringify(payload)]);
  return res.affected;
}

/** From the domains' running counts (see VerificationDomain). */
export async function deferredCount(em: EntityManager, jobId: string): Promise<number> {
  const row = await kysely(em)
    .selectFrom('verification_domain')
    .select((eb) => eb.cast<number>(eb.fn.coalesce(eb.fn.sum('deferredCount'), sql.lit(0)), 'integer').as('n'))
    .where('job', '=', jobId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * When the workflow's next pass over the deferred addresses is due (the job's `nextRetryAt`): stamped as its
 * timer starts, cleared as the pass begins and when the SMTP stage ends.
 */
export async function stampDeferredRetry(em: EntityManager, jobId: string, at: Date | null): Promise<void> {
  await kysely(em).updateTable('verification_job').set({ deferredRetryAt: at }).where('id', '=', jobId).execute();
}

/** The next `limit` deferred addresses after `afterId`, by id. */
export async function deferredAddresses(em: EntityManager, jobId: string, afterId: string | null, limit: number) {
  return kysely(em)
    .selectFrom('verification_result')
    .select(['id', 'email', 'domain'])
    .where('job', '=', jobId)
    .where('deferredSince', 'is not', null)
    .where('smtpCheckedAt', 'is', null)
    .where('id', '>', afterId ?? '00000000-0000-0000-0000-000000000000')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * What is still deferred when the schedule is spent becomes Unknown, its attempts in the reason
 * ("greylisted: deferred 5 times over 22 min (451 4.7.1 ...)"), and reaches the list's leads in the same statement.
 * Only the domains whose running counts hold a deferred address are read (one index range each), so the end of a
 * job costs its domains, not its results (a scan of all 1,000,000 results of a large job took 0.2 s idle).
 * Raw SQL: a data-modifying CTE feeding the leads' write-back. Parameters: the job id three times.
 */
export const SETTLE_DEFERRED_SQL = `
  with stored as (
    update verification_result set smtp_result = 'Unknown', result = 'Unknown', source = 'smtp',
      reason = 'greylisted: deferred ' || deferred_attempts || case when deferred_attempts = 1 then ' time' else ' times' end
        || ' over ' || case when now() - deferred_since < interval '1 minute'
                          then greatest(1, round(extract(epoch from now() - deferred_since)))::int || ' s'
                          else round(extract(epoch from now() - deferred_since) / 60)::int || ' min' end
        || ' (' || deferred_reply || ')',
      smtp_checked_at = now(), checked_at = now()
    where job_id = ? and deferred_since is not null and smtp_checked_at is null
      and domain in (select domain from verification_domain where job_id = ? and deferred_count > 0)
    returning email, result, checked_at
  ), ${WRITE_BATCH_TO_LEADS}
  select count(*) from stored`;

/** Runs inside finishSmtpStage's transaction, so the stage never ends with an address neither final nor waiting. */
export async function settleDeferred(em: EntityManager, jobId: string): Promise<void> {
  await runSql(em, SETTLE_DEFERRED_SQL, [jobId, jobId, jobId]);
}
