import type { Orm } from '../db/orm.ts';
import { Semaphore } from '../concurrency.ts';
import { requiredColumnsText, type ScrapeInputType } from '../domain/scrape.ts';
import { buildProfileSearchQuery, pickProfileHit } from '../domain/search-query.ts';
import type { BatchRun } from '../jobs/batch-run.ts';
import { ProviderRequestError } from '../providers/errors.ts';
import type { ProfileSearchProvider } from '../providers/search/types.ts';
import type { ScrapeBatchInput, ScrapeBatchResult } from './messages.ts';
import { type ItemOutcome, pendingItemsAfter, type ScrapeItemRow, settleScrapeItems } from './repository-items.ts';
import { readScrapeControl } from './repository.ts';
import { markJobStarted } from '../jobs/repository.ts';

/** Items read from the database at a time. */
const PAGE_SIZE = 200;
/**
 * Searches in flight at once per worker, all jobs together (the rate limiter is per worker too). A
 * started search always finishes, so no item is ever searched twice; few in flight means few wait in
 * the rate limiter, which keeps a pause effective within seconds even at one request per second.
 */
const SEARCH_SLOTS = 4;
/** One activity call ends after this many items or this long, keeping the workflow's history short. */
const BATCH_MAX_ITEMS = 1_000;
const BATCH_MAX_MS = 20_000;
/** How stale the job status seen between items may be: the bound on how late a pause is noticed. */
const STATUS_MAX_AGE_MS = 250;
/**
 * Outcomes are written in groups, one statement and one commit each, so progress is not bound by one
 * commit per item; a group is written at least this often, so `completedItems` still moves steadily.
 */
const FLUSH_ITEMS = 50;
const FLUSH_MS = 200;
const SEARCH_RESULTS = 10;

/** What the scrape engine works with, built once per worker: the search slots are shared by all its jobs. */
export interface ScrapeEngineDeps {
  orm: Orm;
  search: ProfileSearchProvider;
  searchSlots: Semaphore;
}

export const createSearchSlots = () => new Semaphore(SEARCH_SLOTS);

/** Searches one row; provider failures other than a refused query propagate. */
async function searchItem(search: ProfileSearchProvider, inputType: ScrapeInputType, item: ScrapeItemRow): Promise<ItemOutcome> {
  const itemId = item.id;
  const query = buildProfileSearchQuery(inputType, item);
  if (!query) {
    return { itemId, status: 'failed', error: `The row has no value to search for (needs ${requiredColumnsText(inputType)})` };
  }
  try {
    const match = pickProfileHit(await search.search(query, SEARCH_RESULTS));
    return match ? { itemId, status: 'found', networkUrl: match.networkUrl, filled: match.parsed } : { itemId, status: 'not_found' };
  } catch (error) {
    // The provider refused this one query for good: the item fails, the job goes on.
    if (!(error instanceof ProviderRequestError)) throw error;
    return { itemId, status: 'failed', error: error.message };
  }
}

/**
 * Processes pending items after the cursor, page by page, until the batch limits, the end of the
 * job, a pause (seen in the job's status) or a worker shutdown. Safe to repeat: only pending items
 * are searched and settled, so a retry after a crash picks up exactly where the last one stopped.
 */
export async function processScrapeBatch(deps: ScrapeEngineDeps, input: ScrapeBatchInput, run: BatchRun): Promise<ScrapeBatchResult> {
  const { orm, search, searchSlots } = deps;
  const control = () => readScrapeControl(orm.em.fork(), input.jobId);
  const startedAt = Date.now();
  await markJobStarted(orm.em.fork(), 'scrape_job', input.jobId);
  let seen = await control();
  let seenAt = Date.now();
  let afterRow = input.afterRow;
  let searched = 0;
  let outcomes: ItemOutcome[] = [];
  let flushedAt = Date.now();
  const flush = async () => {
    if (outcomes.length === 0) return;
    const group = outcomes;
    outcomes = [];
    flushedAt = Date.now();
    await settleScrapeItems(orm.em.fork(), input.jobId, group);
  };
  const result = (outcome: ScrapeBatchResult['outcome']): ScrapeBatchResult => ({
    afterRow,
    outcome,
    status: seen.status,
    controlVersion: seen.controlVersion,
  });
  if (seen.status !== 'processing') return result('stopped');

  for (;;) {
    const page = await pendingItemsAfter(orm.em.fork(), input.jobId, afterRow, PAGE_SIZE);
    if (page.length === 0) return result('done');

    // Checked before each item starts (again once a search slot is free); started items always finish.
    let stop: 'stopped' | 'more' | null = null;
    const mayStart = async (): Promise<boolean> => {
      if (stop) return false;
      if (run.signal.aborted) stop = 'more';
      else if (searched >= BATCH_MAX_ITEMS || Date.now() - startedAt >= BATCH_MAX_MS) stop = 'more';
      else if (Date.now() - seenAt > STATUS_MAX_AGE_MS) {
        seen = await control();
        seenAt = Date.now();
        if (seen.status !== 'processing') stop = 'stopped';
      }
      return stop === null;
    };

    let next = 0;
    let failure: { error: unknown } | null = null;
    const runner = async () => {
      for (;;) {
        if (failure !== null || next >= page.length || !(await mayStart())) return;
        let release: () => void;
        try {
          release = await searchSlots.acquire(run.signal);
        } catch {
          return; // Cancelled while waiting for a slot: the cancellation is rethrown below.
        }
        try {
          if (failure !== null || !(await mayStart()) || next >= page.length) return;
          // No await between the last bound check and the claim: runners never share an item.
          const item = page[next++]!;
          const outcome = await searchItem(search, seen.inputType, item);
          release();
          // Read `outcomes` only now: a flush during the search replaced the array.
          outcomes.push(outcome);
          searched++;
          run.beat();
          if (outcomes.length >= FLUSH_ITEMS || Date.now() - flushedAt >= FLUSH_MS) await flush();
        } catch (error) {
          failure ??= { error };
        } finally {
          release();
        }
      }
    };
    await Promise.all(Array.from({ length: SEARCH_SLOTS }, runner));
    // Whatever else happened, what was searched is recorded, so it is never searched again.
    await flush();

    if (failure !== null) throw (failure as { error: unknown }).error;
    // Worker shutdown: the started items are settled; the retry (on any worker) takes the rest.
    run.signal.throwIfAborted();
    // The cursor moves only past a page settled in full; a partial page is re-read (pending only).
    if (next >= page.length && stop === null) afterRow = page.at(-1)!.rowNumber;
    if (stop) return result(stop);
  }
}
