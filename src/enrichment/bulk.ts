import type { EntityManager } from '@mikro-orm/postgresql';
import { findFreshProfiles, mergeCacheEntry, saveCacheEntries, type CachedProfile } from '../db/repos/enriched-profiles.ts';
import type { EnrichmentField } from '../domain/enrichment.ts';
import { deliverFinds, lockOrganization } from './settle.ts';
import { prepareWaterfall, type EnrichmentServices } from './services.ts';
import { runWaterfall, type PersonFacts, type WaterfallResult } from './waterfall.ts';

/**
 * Leads of one batch looked up at the same time. Many at once lets the email checker probe the addresses
 * of one domain in one SMTP session; provider rate limits and the prober's connection limits still apply.
 */
const LEAD_CONCURRENCY = 50;

export interface BatchInput {
  jobId: string;
  /** The job's cursor this batch starts after (null for the first batch). */
  after: string | null;
}

export interface BatchStep {
  /** The cursor after this batch: where the next batch starts. */
  cursor: string | null;
  /** The job is over (completed, stopped, failed or gone): no further batch. */
  done: boolean;
}

interface JobRow {
  id: string;
  organization_id: string;
  list_id: string;
  status: string;
  fields: string[] | string;
  cursor: string | null;
  last_lead_id: string | null;
  credit_balance: number;
}

interface LeadRow {
  id: string;
  network_url: string | null;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  company: string | null;
  company_domain: string | null;
}

/** The waterfall's answer for one lead, and which fields it ran for. */
interface LeadFinds {
  result: WaterfallResult;
  searched: EnrichmentField[];
}

class BatchAlreadyCommitted extends Error {}

const textArray = (value: string[] | string) => (Array.isArray(value) ? value : value.replace(/^\{|\}$/g, '').split(',').filter(Boolean));

async function loadJob(em: EntityManager, jobId: string): Promise<JobRow | undefined> {
  const [job] = await em.execute<JobRow[]>(
    `select j.id, j.organization_id, j.list_id, j.status, j.fields, j.cursor, j.last_lead_id, o.credit_balance
     from enrichment_job j join organization o on o.id = j.organization_id where j.id = ?`,
    [jobId],
  );
  return job;
}

async function mapConcurrent<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

const factsOf = (lead: LeadRow): PersonFacts => ({
  firstName: lead.first_name ?? undefined,
  lastName: lead.last_name ?? undefined,
  title: lead.title ?? undefined,
  company: lead.company ?? undefined,
  companyDomain: lead.company_domain ?? undefined,
});

/**
 * One batch of a bulk job: the next leads after the job's cursor are looked up (cache first, then the
 * waterfall, no charge), then one transaction under the organization's lock moves the cursor (only
 * from `after`: a batch commits once, however often the activity runs), charges every delivered
 * datum with key `<job>:<lead>:<field>`, writes the leads, the cache and the job's counters. The first
 * datum the balance cannot pay for stops the job (`insufficient_credits`); leads not reached are skipped.
 */
export async function enrichBulkBatch(
  em: EntityManager,
  services: EnrichmentServices,
  input: BatchInput,
  batchSize: number,
  heartbeat: () => void,
): Promise<BatchStep> {
  const job = await loadJob(em, input.jobId);
  if (!job || job.status !== 'processing') return { cursor: job?.cursor ?? null, done: true };
  if (job.cursor !== input.after) return { cursor: job.cursor, done: false };

  const leads = job.last_lead_id
    ? await em.execute<LeadRow[]>(
        `select id, network_url, first_name, last_name, title, company, company_domain from lead
         where list_id = ? and id <= ? ${input.after ? 'and id > ?' : ''} order by id limit ?`,
        [job.list_id, job.last_lead_id, ...(input.after ? [input.after] : []), batchSize],
      )
    : [];
  const fields = textArray(job.fields) as EnrichmentField[];
  const cacheDays = services.config.ENRICHMENT_CACHE_DAYS;
  const finds = new Map<string, LeadFinds>();
  // Nothing could be paid: stop without calling anyone.
  const broke = Number(job.credit_balance) <= 0;
  if (!broke && leads.length > 0) {
    const urls = leads.flatMap((lead) => (lead.network_url ? [lead.network_url] : []));
    const cache = await findFreshProfiles(em, job.organization_id, urls, cacheDays);
    const { chain, checker } = await prepareWaterfall(em, services, job.organization_id);
    await mapConcurrent(leads, LEAD_CONCURRENCY, async (lead) => {
      const settled = lead.network_url ? (cache.get(lead.network_url)?.searched ?? []) : [];
      const searched = fields.filter((field) => !settled.includes(field));
      if (searched.length > 0) {
        const result = await runWaterfall({ networkUrl: lead.network_url, person: factsOf(lead), fields: searched }, chain, checker);
        finds.set(lead.id, { result, searched });
      }
      heartbeat();
    });
  }

  const cursor = leads.at(-1)?.id ?? input.after;
  const last = leads.length < batchSize || cursor === job.last_lead_id;
  try {
    return await em.transactional(async (tx) => {
      await lockOrganization(tx, job.organization_id);
      const moved = await tx.execute(
        `update enrichment_job set cursor = ?, updated_at = now() where id = ? and status = 'processing' and cursor is not distinct from ? returning id`,
        [cursor, job.id, input.after],
      );
      if (moved.length === 0) throw new BatchAlreadyCommitted();
      const urls = leads.flatMap((lead) => (lead.network_url ? [lead.network_url] : []));
      const cache = await findFreshProfiles(tx, job.organization_id, urls, cacheDays);
      const changed = new Map<string, CachedProfile>();
      const writes: Array<{ id: string; values: Partial<Record<EnrichmentField, string>> }> = [];
      let stopped = broke;
      let processed = 0;
      let succeeded = 0;
      let credits = 0;
      const now = new Date();

      for (const lead of leads) {
        if (stopped) continue;
        const found = finds.get(lead.id);
        const cached = lead.network_url ? cache.get(lead.network_url) : undefined;
        const delivery = await deliverFinds(
          tx,
          {
            organizationId: job.organization_id,
            keyPrefix: `${job.id}:${lead.id}`,
            reason: 'Bulk enrichment',
            refType: 'enrichment_job',
            refId: job.id,
          },
          fields,
          found?.result.values ?? {},
          cached,
          { stopWhenShort: true },
        );
        const delivered = Object.keys(delivery.values).length > 0;
        if (delivery.shortOfCredits) {
          stopped = true;
          // The lead the credits ran out on counts as processed only when it got something.
          if (!delivered) continue;
        }
        processed++;
        credits += delivery.credits;
        if (delivered) {
          succeeded++;
          writes.push({ id: lead.id, values: delivery.values });
        }
        if (lead.network_url && found) {
          const entry = mergeCacheEntry(
            cached,
            {
              networkUrl: lead.network_url,
              person: found.result.person,
              values: delivery.values,
              searched: found.searched.filter((field) => !delivery.withheld.includes(field)),
              paid: delivery.charged.length > 0,
            },
            now,
          );
          if (entry) {
            // A later lead of this batch with the same profile gets it from the cache.
            cache.set(lead.network_url, entry);
            changed.set(lead.network_url, entry);
          }
        }
      }

      await writeLeads(tx, writes);
      await saveCacheEntries(tx, job.organization_id, [...changed.values()]);
      const done = stopped || last;
      await tx.execute(
        `update enrichment_job set
           processed_leads = processed_leads + ?, success_count = success_count + ?, failed_count = failed_count + ?,
           credits_used = credits_used + ?,
           status = case when ? then 'completed' else status end,
           stop_reason = case when ? then 'insufficient_credits' else stop_reason end,
           skipped_count = case when ? then total_leads - processed_leads - ? else skipped_count end,
           completed_at = case when ? then now() else completed_at end,
           updated_at = now()
         where id = ?`,
        [processed, succeeded, processed - succeeded, credits, done, stopped, stopped, processed, done, job.id],
      );
      return { cursor, done };
    });
  } catch (error) {
    if (!(error instanceof BatchAlreadyCommitted)) throw error;
    const now = await loadJob(em, input.jobId);
    return { cursor: now?.cursor ?? null, done: !now || now.status !== 'processing' };
  }
}

/** The delivered data onto the leads, one statement; fields not delivered keep their value. */
async function writeLeads(tx: EntityManager, writes: ReadonlyArray<{ id: string; values: Partial<Record<EnrichmentField, string>> }>) {
  if (writes.length === 0) return;
  const rows = writes.map(() => '(?::uuid, ?::varchar, ?::varchar, ?::varchar)').join(', ');
  await tx.execute(
    `update lead as l set
       work_email = coalesce(v.work_email, l.work_email),
       personal_email = coalesce(v.personal_email, l.personal_email),
       phone = coalesce(v.phone, l.phone),
       enriched_at = now(), updated_at = now()
     from (values ${rows}) as v(id, work_email, personal_email, phone)
     where l.id = v.id`,
    writes.flatMap((w) => [w.id, w.values.workEmail ?? null, w.values.personalEmail ?? null, w.values.phone ?? null]),
  );
}

/** pending → processing (the workflow's first step). */
export async function beginBulkJob(em: EntityManager, jobId: string): Promise<void> {
  await em.execute(`update enrichment_job set status = 'processing', updated_at = now() where id = ? and status = 'pending'`, [jobId]);
}

/** The job cannot go on (a provider rejected the key, retries exhausted): failed, with the reason. */
export async function failBulkJob(em: EntityManager, jobId: string, reason: string): Promise<void> {
  await em.execute(
    `update enrichment_job set status = 'failed', failure_reason = ?, completed_at = now(), updated_at = now()
     where id = ? and status in ('pending', 'processing')`,
    [reason.slice(0, 2000), jobId],
  );
}
