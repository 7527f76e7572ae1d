import type { Orm } from '../db/orm.ts';
import type { BatchRun } from '../jobs/batch-run.ts';
import type { BatchInput, BatchStep } from './messages.ts';
import { mapConcurrent } from '../concurrency.ts';
import { loadBulkWork, moveBulkCursor, recordBulkBatch } from './repository.ts';
import { findFreshProfiles, mergeCacheEntry, saveCacheEntries, type CachedProfile } from './repository-profiles.ts';
import { type EnrichmentLeadRow, leadsForEnrichment, writeEnrichedValues } from '../db/repos/leads.ts';
import type { EnrichmentField } from '../domain/enrichment.ts';
import { deliverFinds, lockOrganization } from './settle.ts';
import { prepareWaterfall, type EnrichmentClients } from './clients.ts';
import { runWaterfall, type PersonFacts, type WaterfallResult } from './waterfall.ts';

/**
 * Leads of one batch looked up at the same time. Many at once lets the email checker probe the addresses
 * of one domain in one SMTP session; provider rate limits and the prober's connection limits still apply.
 */
const LEAD_CONCURRENCY = 50;

/** What the bulk enrichment engine works with, built once per worker. */
export interface EnrichmentEngineDeps {
  orm: Orm;
  clients: EnrichmentClients;
  /** Leads per batch (ENRICHMENT_BATCH_SIZE). */
  batchSize: number;
}

/** The waterfall's answer for one lead, and which fields it ran for. */
interface LeadFinds {
  result: WaterfallResult;
  searched: EnrichmentField[];
}

class BatchAlreadyCommitted extends Error {}

const factsOf = (lead: EnrichmentLeadRow): PersonFacts => ({
  firstName: lead.firstName ?? undefined,
  lastName: lead.lastName ?? undefined,
  title: lead.title ?? undefined,
  company: lead.company ?? undefined,
  companyDomain: lead.companyDomain ?? undefined,
});

/**
 * One batch of a bulk job: the next leads after the job's cursor are looked up (cache first, then the
 * waterfall, no charge), then one transaction under the organization's lock moves the cursor (only
 * from `after`: a batch commits once, however often the activity runs), charges every delivered
 * datum with key `<job>:<lead>:<field>`, writes the leads, the cache and the job's counters. The first
 * datum the balance cannot pay for stops the job (`insufficient_credits`); leads not reached are skipped.
 */
export async function enrichBulkBatch(deps: EnrichmentEngineDeps, input: BatchInput, run: BatchRun): Promise<BatchStep> {
  const { clients, batchSize } = deps;
  const em = deps.orm.em.fork();
  const job = await loadBulkWork(em, input.jobId);
  if (job.status !== 'processing') return { cursor: job.cursor, done: true };
  if (job.cursor !== input.after) return { cursor: job.cursor, done: false };

  const leads = job.lastLeadId
    ? await leadsForEnrichment(em, { listId: job.listId, after: input.after, last: job.lastLeadId, limit: batchSize })
    : [];
  const { fields } = job;
  const cacheDays = clients.config.ENRICHMENT_CACHE_DAYS;
  const finds = new Map<string, LeadFinds>();
  // Nothing could be paid: stop without calling anyone.
  const broke = job.creditBalance <= 0;
  const urls = leads.flatMap((lead) => (lead.networkUrl ? [lead.networkUrl] : []));
  if (!broke && leads.length > 0) {
    const cache = await findFreshProfiles(em, job.organizationId, urls, cacheDays);
    const { chain, checker } = await prepareWaterfall(em, clients, job.organizationId);
    await mapConcurrent(leads, LEAD_CONCURRENCY, async (lead) => {
      const settled = lead.networkUrl ? (cache.get(lead.networkUrl)?.searched ?? []) : [];
      const searched = fields.filter((field) => !settled.includes(field));
      if (searched.length > 0) {
        const result = await runWaterfall({ networkUrl: lead.networkUrl, person: factsOf(lead), fields: searched }, chain, checker);
        finds.set(lead.id, { result, searched });
      }
      run.beat();
    });
  }

  const cursor = leads.at(-1)?.id ?? input.after;
  const last = leads.length < batchSize || cursor === job.lastLeadId;
  try {
    return await em.transactional(async (tx) => {
      await lockOrganization(tx, job.organizationId);
      if (!(await moveBulkCursor(tx, job.id, input.after, cursor))) throw new BatchAlreadyCommitted();
      const cache = await findFreshProfiles(tx, job.organizationId, urls, cacheDays);
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
        const cached = lead.networkUrl ? cache.get(lead.networkUrl) : undefined;
        const delivery = await deliverFinds(
          tx,
          {
            organizationId: job.organizationId,
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
        if (lead.networkUrl && found) {
          const entry = mergeCacheEntry(
            cached,
            {
              networkUrl: lead.networkUrl,
              person: found.result.person,
              values: delivery.values,
              searched: found.searched.filter((field) => !delivery.withheld.includes(field)),
              paid: delivery.charged.length > 0,
            },
            now,
          );
          if (entry) {
            // A later lead of this batch with the same profile gets it from the cache.
            cache.set(lead.networkUrl, entry);
            changed.set(lead.networkUrl, entry);
          }
        }
      }

      await writeEnrichedValues(tx, writes);
      await saveCacheEntries(tx, job.organizationId, [...changed.values()]);
      const done = stopped || last;
      await recordBulkBatch(tx, job.id, { processed, succeeded, credits, done, stopped });
      return { cursor, done };
    });
  } catch (error) {
    if (!(error instanceof BatchAlreadyCommitted)) throw error;
    const now = await loadBulkWork(em, input.jobId);
    return { cursor: now.cursor, done: now.status !== 'processing' };
  }
}
