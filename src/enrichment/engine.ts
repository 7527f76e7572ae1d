import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../db/orm.ts';
import type { BatchRun } from '../jobs/batch-run.ts';
import type { BatchInput, BatchStep } from './messages.ts';
import { mapConcurrent } from '../concurrency.ts';
import { type BulkWork, loadBulkWork, moveBulkCursor, recordBulkBatch } from './repository.ts';
import { findFreshProfiles, mergeCacheEntry, saveCacheEntries, type CachedProfile } from './repository-profiles.ts';
import { type EnrichmentLeadRow, leadsForEnrichment, writeEnrichedValues } from '../db/repos/leads.ts';
import type { EnrichmentField } from '../domain/enrichment.ts';
import { type Delivery, deliverFinds, lockOrganization } from './engine-settle.ts';
import { prepareWaterfall, type EnrichmentClients } from './clients.ts';
import { runWaterfall, type PersonFacts, type WaterfallResult } from './engine-waterfall.ts';

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

/** A lead's newly delivered values, written in one statement for the batch. */
interface LeadValues {
  id: string;
  values: Partial<Record<EnrichmentField, string>>;
}

class BatchAlreadyCommitted extends Error {}

const factsOf = (lead: EnrichmentLeadRow): PersonFacts => ({
  firstName: lead.firstName ?? undefined,
  lastName: lead.lastName ?? undefined,
  title: lead.title ?? undefined,
  company: lead.company ?? undefined,
  companyDomain: lead.companyDomain ?? undefined,
});

/** One batch's leads and what settling them needs, fixed before any lookup. */
interface Batch {
  job: BulkWork;
  leads: EnrichmentLeadRow[];
  /** The leads' profile URLs: their cache entries are read before the lookups and again under the lock. */
  urls: string[];
  cacheDays: number;
  /** Nothing could be paid: stop without calling anyone. */
  broke: boolean;
}

/** What the settling transaction adds to the job's counters. */
interface Settled {
  processed: number;
  succeeded: number;
  credits: number;
  stopped: boolean;
}

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
  const batch: Batch = {
    job,
    leads,
    urls: leads.flatMap((lead) => (lead.networkUrl ? [lead.networkUrl] : [])),
    cacheDays: clients.config.ENRICHMENT_CACHE_DAYS,
    broke: job.creditBalance <= 0,
  };
  const finds = await lookUpLeads(em, clients, batch, run);

  const cursor = leads.at(-1)?.id ?? input.after;
  const last = leads.length < batchSize || cursor === job.lastLeadId;
  try {
    return await em.transactional(async (tx) => {
      await lockOrganization(tx, job.organizationId);
      if (!(await moveBulkCursor(tx, job.id, input.after, cursor))) throw new BatchAlreadyCommitted();
      const { writes, changed, ...settled } = await settleLeads(tx, batch, finds);
      await writeEnrichedValues(tx, writes);
      await saveCacheEntries(tx, job.organizationId, changed);
      const done = settled.stopped || last;
      await recordBulkBatch(tx, job.id, { ...settled, done });
      return { cursor, done };
    });
  } catch (error) {
    if (!(error instanceof BatchAlreadyCommitted)) throw error;
    const now = await loadBulkWork(em, input.jobId);
    return { cursor: now.cursor, done: now.status !== 'processing' };
  }
}

/** Runs the waterfall for each lead's fields its cached profile has not settled; nothing is charged yet. */
async function lookUpLeads(
  em: EntityManager,
  clients: EnrichmentClients,
  { job, leads, urls, cacheDays, broke }: Batch,
  run: BatchRun,
): Promise<Map<string, LeadFinds>> {
  const finds = new Map<string, LeadFinds>();
  if (broke || leads.length === 0) return finds;
  const cache = await findFreshProfiles(em, job.organizationId, urls, cacheDays);
  const { chain, checker } = await prepareWaterfall(em, clients, job.organizationId);
  await mapConcurrent(leads, LEAD_CONCURRENCY, async (lead) => {
    const settled = lead.networkUrl ? (cache.get(lead.networkUrl)?.searched ?? []) : [];
    const searched = job.fields.filter((field) => !settled.includes(field));
    if (searched.length > 0) {
      const result = await runWaterfall({ networkUrl: lead.networkUrl, person: factsOf(lead), fields: searched }, chain, checker);
      finds.set(lead.id, { result, searched });
    }
    run.beat();
  });
  return finds;
}

/**
 * Charges and delivers each lead's finds in order (the cache read again under the lock), until the first
 * datum the balance cannot pay for; returns the leads' new values, the changed cache entries and the counts.
 */
async function settleLeads(
  tx: EntityManager,
  { job, leads, urls, cacheDays, broke }: Batch,
  finds: Map<string, LeadFinds>,
): Promise<Settled & { writes: LeadValues[]; changed: CachedProfile[] }> {
  const cache = await findFreshProfiles(tx, job.organizationId, urls, cacheDays);
  const changed = new Map<string, CachedProfile>();
  const writes: LeadValues[] = [];
  const settled: Settled = { processed: 0, succeeded: 0, credits: 0, stopped: broke };
  const now = new Date();

  for (const lead of leads) {
    if (settled.stopped) continue;
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
      job.fields,
      found?.result.values ?? {},
      cached,
      { stopWhenShort: true },
    );
    const delivered = Object.keys(delivery.values).length > 0;
    if (delivery.shortOfCredits) {
      settled.stopped = true;
      // The lead the credits ran out on counts as processed only when it got something.
      if (!delivered) continue;
    }
    settled.processed++;
    settled.credits += delivery.credits;
    if (delivered) {
      settled.succeeded++;
      writes.push({ id: lead.id, values: delivery.values });
    }
    const entry = lead.networkUrl && found ? updatedProfile(lead.networkUrl, cached, found, delivery, now) : null;
    if (entry) {
      // A later lead of this batch with the same profile gets it from the cache.
      cache.set(entry.networkUrl, entry);
      changed.set(entry.networkUrl, entry);
    }
  }
  return { ...settled, writes, changed: [...changed.values()] };
}

/** The lead's cached profile with what this lookup found and delivered, or null when nothing changes. */
function updatedProfile(
  networkUrl: string,
  cached: CachedProfile | undefined,
  found: LeadFinds,
  delivery: Delivery,
  now: Date,
): CachedProfile | null {
  return mergeCacheEntry(
    cached,
    {
      networkUrl,
      person: found.result.person,
      values: delivery.values,
      searched: found.searched.filter((field) => !delivery.withheld.includes(field)),
      paid: delivery.charged.length > 0,
    },
    now,
  );
}
