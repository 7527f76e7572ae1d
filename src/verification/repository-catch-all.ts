import type { EntityManager } from '@mikro-orm/postgresql';
import type { CatchAllReason } from '../domain/catch-all.ts';
import type { EmailTemplate } from '../domain/email-templates.ts';
import type { MxProvider } from '../domain/mx-provider.ts';
import { WRITE_BATCH_TO_LEADS } from '../db/repos/lead-write-back.ts';

/** A Catch-All result waiting for its score (or, on a retry pass, for the directory). */
export interface CatchAllRow {
  id: string;
  email: string;
  domain: string;
  mailboxProvider: MxProvider | null;
}

const toCatchAllRow = (r: Record<string, unknown>): CatchAllRow => ({
  id: r.id as string,
  email: r.email as string,
  domain: r.domain as string,
  mailboxProvider: (r.mailbox_provider as MxProvider | null) ?? null,
});

/**
 * The next page (by id) of the job's Catch-All results not scored yet. The partial index on
 * (job_id, catch_all_score) where result = 'Catch-All' holds exactly these rows.
 */
export async function unscoredCatchAlls(em: EntityManager, jobId: string, afterId: string, limit: number): Promise<CatchAllRow[]> {
  const rows = await em.execute(
    `select id, email, domain, mailbox_provider from verification_result
     where job_id = ? and result = 'Catch-All' and catch_all_score is null and id > ? order by id limit ?`,
    [jobId, afterId, limit],
  );
  return rows.map(toCatchAllRow);
}

/**
 * The next page of the job's Microsoft-hosted Catch-All results the directory has not answered for (its answer was
 * no verdict, or the tenant's canary could not be asked), other than those whose tenant answers for anyone.
 */
export async function directoryPending(em: EntityManager, jobId: string, afterId: string, limit: number): Promise<CatchAllRow[]> {
  const rows = await em.execute(
    `select id, email, domain, mailbox_provider from verification_result
     where job_id = ? and result = 'Catch-All' and catch_all_score is not null and mailbox_provider = 'microsoft'
       and directory_result is null and not jsonb_exists_any(catch_all_reasons, array['provider_accepts_all', 'prior_bounced', 'prior_delivered'])
       and id > ? order by id limit ?`,
    [jobId, afterId, limit],
  );
  return rows.map(toCatchAllRow);
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
  const [names, found, prior, templates] = await Promise.all([
    em.execute(
      `select distinct on (email_key) email_key, first_name, last_name from lead
       where list_id = ? and email_key in (?) and coalesce(first_name, '') <> '' and coalesce(last_name, '') <> ''
       order by email_key, id`,
      [job.listId, emails],
    ),
    // A lead holding the address whose enrichment found it too; the (list_id, email_key) index bounds the read by the page.
    em.execute(
      `select email_key as email from lead
       where list_id = ? and email_key in (?) and (lower(work_email) = email_key or lower(personal_email) = email_key)`,
      [job.listId, emails],
    ),
    em.execute(
      `select email, outcome, bounce_type from send_outcome where organization_id = ? and email in (?)
       and (outcome = 'delivered' or bounce_type is distinct from 'soft')`,
      [job.organizationId, emails],
    ),
    em.execute(`select domain, template, valid_count from domain_template_share where domain in (?)`, [domains]),
  ]);
  const byDomain = new Map<string, Array<{ template: EmailTemplate; validCount: number }>>();
  for (const t of templates) {
    const list = byDomain.get(t.domain as string) ?? [];
    list.push({ template: t.template as EmailTemplate, validCount: Number(t.valid_count) });
    byDomain.set(t.domain as string, list);
  }
  return {
    names: new Map(names.map((n) => [n.email_key as string, { firstName: n.first_name as string, lastName: n.last_name as string }])),
    found: new Set(found.map((f) => f.email as string)),
    prior: new Map(prior.map((p) => [p.email as string, p.outcome === 'delivered' ? 'delivered' : 'hard_bounce'])),
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
     ), leads as (${WRITE_BATCH_TO_LEADS})
     select count(*)::int as written from stored`;

export async function storeAssessments(em: EntityManager, jobId: string, assessments: Assessment[]): Promise<number> {
  if (assessments.length === 0) return 0;
  const payload = assessments.map((a) =>
    a.kind === 'directory_valid'
      ? { id: a.id, valid: true, score: null, reasons: [], directory_result: a.ifExistsResult }
      : { id: a.id, valid: false, score: a.score, reasons: a.reasons, directory_result: a.directoryResult },
  );
  const [row] = await em.execute(STORE_ASSESSMENTS_SQL, [JSON.stringify(payload), jobId, jobId]);
  return Number(row?.written ?? 0);
}
