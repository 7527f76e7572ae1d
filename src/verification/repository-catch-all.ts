import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../db/kysely.ts';
import type { CatchAllReason } from '../domain/catch-all.ts';
import type { EmailTemplate } from '../domain/email-templates.ts';
import type { MxProvider } from '../domain/mx-provider.ts';
import { WRITE_BATCH_TO_LEADS } from './repository-write-back.ts';
import { runSql } from '../db/run-sql.ts';

/** A Catch-All result waiting for its score (or, on a retry pass, for the directory). */
export interface CatchAllRow {
  id: string;
  email: string;
  domain: string;
  mailboxProvider: MxProvider | null;
}

const catchAlls = (em: EntityManager, jobId: string, afterId: string, limit: number) =>
  kysely(em)
    .selectFrom('verification_result')
    .select(['id', 'email', 'domain', 'mailboxProvider'])
    .where('job', '=', jobId)
    .where('result', '=', 'Catch-All')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .$narrowType<{ mailboxProvider: MxProvider | null }>();

/**
 * The next page (by id) of the job's Catch-All results not scored yet. The partial index on
 * (job_id, catch_all_score) where result = 'Catch-All' holds exactly these rows.
 */
export async function unscoredCatchAlls(em: EntityManager, jobId: string, afterId: string, limit: number): Promise<CatchAllRow[]> {
  return catchAlls(em, jobId, afterId, limit).where('catchAllScore', 'is', null).execute();
}

/** Whether any of the job's Catch-All results waits for its score (the same partial index). */
export async function hasUnscoredCatchAll(em: EntityManager, jobId: string): Promise<boolean> {
  return (await unscoredCatchAlls(em, jobId, '00000000-0000-0000-0000-000000000000', 1)).length > 0;
}

/**
 * The next page of the job's Microsoft-hosted Catch-All results the directory has not answered for (its answer was
 * no verdict, or the tenant's canary could not be asked), other than those whose tenant answers for anyone.
 */
export async function directoryPending(em: EntityManager, jobId: string, afterId: string, limit: number): Promise<CatchAllRow[]> {
  return catchAlls(em, jobId, afterId, limit)
    .where('catchAllScore', 'is not', null)
    .where('mailboxProvider', '=', 'microsoft')
    .where('directoryResult', 'is', null)
    .where((eb) => eb.not(eb.fn<boolean>('jsonb_exists_any', ['catchAllReasons', sql`array['provider_accepts_all', 'prior_bounced', 'prior_delivered']`])))
    .execute();
}

/** What the organization and every earlier job know about a page of addresses (CONTRACT §12 signals). */
export interface ScoreContext {
  /** By address: the names of a lead of the job's list that holds it, when it has both. */
  names: Map<string, { firstName: string; lastName: string }>;
  /** Addresses an enrichment provider returned for the list's lead that holds them (its found work or personal email). */
  found: Set<string>;
  /** By address: the organization's latest send outcome that says something (delivered, or a hard bounce). */
  prior: Map<string, 'delivered' | 'hard_bounce'>;
  /** By domain: how often each template was seen Valid there. */
  templates: Map<string, Array<{ template: EmailTemplate; validCount: number }>>;
}

export async function scoreContext(
  em: EntityManager,
  job: { organizationId: string; listId: string },
  emails: string[],
  domains: string[],
): Promise<ScoreContext> {
  const db = kysely(em);
  const [names, found, prior, templates] = await Promise.all([
    db
      .selectFrom('lead')
      .distinctOn('emailKey')
      .select(['emailKey', 'firstName', 'lastName'])
      .where('list', '=', job.listId)
      .where('emailKey', 'in', emails)
      .where((eb) => eb(eb.fn.coalesce('firstName', sql.lit('')), '<>', sql.lit('')))
      .where((eb) => eb(eb.fn.coalesce('lastName', sql.lit('')), '<>', sql.lit('')))
      .orderBy('emailKey')
      .orderBy('id')
      .execute(),
    // A lead holding the address whose enrichment found it too; the (list_id, email_key) index bounds the read by the page.
    db
      .selectFrom('lead')
      .select('emailKey')
      .where('list', '=', job.listId)
      .where('emailKey', 'in', emails)
      .where((eb) => eb.or([eb(eb.fn('lower', ['workEmail']), '=', eb.ref('emailKey')), eb(eb.fn('lower', ['personalEmail']), '=', eb.ref('emailKey'))]))
      .execute(),
    db
      .selectFrom('send_outcome')
      .select(['email', 'outcome'])
      .where('organization', '=', job.organizationId)
      .where('email', 'in', emails)
      .where((eb) => eb.or([eb('outcome', '=', 'delivered'), eb('bounceType', 'is distinct from', 'soft')]))
      .execute(),
    db.selectFrom('domain_template_share').select(['domain', 'template', 'validCount']).where('domain', 'in', domains).execute(),
  ]);
  const byDomain = new Map<string, Array<{ template: EmailTemplate; validCount: number }>>();
  for (const t of templates) {
    const list = byDomain.get(t.domain) ?? [];
    list.push({ template: t.template as EmailTemplate, validCount: Number(t.validCount) });
    byDomain.set(t.domain, list);
  }
  return {
    names: new Map(names.map((n) => [n.emailKey!, { firstName: n.firstName!, lastName: n.lastName! }])),
    found: new Set(found.map((f) => f.emailKey!)),
    prior: new Map(prior.map((p) => [p.email, p.outcome === 'delivered' ? 'delivered' : 'hard_bounce'])),
    templates: byDomain,
  };
}

/** A Catch-All result's assessment: a score and its reasons, or the directory's word that the mailbox exists. */
export type Assessment =
  | { id: string; kind: 'scored'; score: number; reasons: CatchAllReason[]; directoryResult: number | null }
  | { id: string; kind: 'directory_valid'; ifExistsResult: number };

/**
 * Stores a page of assessments in one statement. A directory `exists` makes the address Valid in the SMTP stage
 * (its counts, CONTRACT §12) and reaches the list's leads in the same statement; only rows still Catch-All are
 * touched, so a retried page changes nothing twice. Parameters: the assessments as JSON, the job id twice.
 */
export const STORE_ASSESSMENTS_SQL = `with stored as (
       update verification_result r set
         catch_all_score = case when v.valid then null else v.score end,
         catch_all_reasons = case when v.valid then '[]'::jsonb else v.reasons end,
         directory_result = v.directory_result,
         smtp_result = case when v.valid then 'Valid' else r.smtp_result end,
         result = case when v.valid then 'Valid' else r.result end,
         source = case when v.valid then 'directory' else r.source end,
         reason = case when v.valid then 'directory: Microsoft 365 knows this address (IfExistsResult ' || v.directory_result || ')' else r.reason end,
         checked_at = case when v.valid then now() else r.checked_at end
       from jsonb_to_recordset(?::jsonb) as v(id uuid, valid boolean, score int, reasons jsonb, directory_result int)
       where r.id = v.id and r.job_id = ? and r.result = 'Catch-All'
       returning r.email, case when v.valid then r.result end as result, r.checked_at
     ), ${WRITE_BATCH_TO_LEADS}
     select count(*)::int as written from stored`;

export async function storeAssessments(em: EntityManager, jobId: string, assessments: Assessment[]): Promise<number> {
  if (assessments.length === 0) return 0;
  const payload = assessments.map((a) =>
    a.kind === 'directory_valid'
      ? { id: a.id, valid: true, score: null, reasons: [], directory_result: a.ifExistsResult }
      : { id: a.id, valid: false, score: a.score, reasons: a.reasons, directory_result: a.directoryResult },
  );
  const [row] = await runSql(em, STORE_ASSESSMENTS_SQL, [JSON.stringify(payload), jobId, jobId]);
  return Number(row?.written ?? 0);
}
