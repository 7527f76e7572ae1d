import { heartbeating } from './heartbeat.ts';
import { jobActivities } from './job-gone.ts';
import { completeScrapeJob, failScrapeJob, readScrapeControl, type ScrapeJobControl } from '../src/scrape/repository.ts';
import { createSearchSlots, processScrapeBatch } from '../src/scrape/engine.ts';
import type { ScrapeBatchInput, ScrapeBatchResult } from '../src/scrape/messages.ts';
import type { ActivityDeps } from './deps.ts';
import { toActivityFailure } from './provider-failure.ts';
import { log } from '../src/log.ts';

/** The scrape job's activities: thin adapters over its engine (src/scrape/engine.ts) and repository. */
export function scrapeActivities(deps: ActivityDeps) {
  const { orm, search } = deps;
  const engine = { orm, search, searchSlots: createSearchSlots() };

  return jobActivities({
    /** One batch of searches from the cursor (src/scrape/engine.ts); safe to repeat. */
    async processScrapeBatch(input: ScrapeBatchInput): Promise<ScrapeBatchResult> {
      try {
        return await heartbeating((run) => processScrapeBatch(engine, input, run));
      } catch (error) {
        throw toActivityFailure(error);
      }
    },

    /** The job's status and control version: how a paused workflow catches a resume whose signal was lost. */
    async readScrapeJobControl(jobId: string): Promise<Pick<ScrapeJobControl, 'status' | 'controlVersion'>> {
      const { status, controlVersion } = await readScrapeControl(orm.em.fork(), jobId);
      return { status, controlVersion };
    },

    /** True when the job is completed (or was closed otherwise); false while items are still pending. */
    async completeScrapeJob(jobId: string): Promise<boolean> {
      const done = await completeScrapeJob(orm.em.fork(), jobId);
      if (done) log.info('scrape job finished', { jobId });
      return done;
    },

    async failScrapeJob(input: { jobId: string; reason: string }): Promise<void> {
      await failScrapeJob(orm.em.fork(), input.jobId, input.reason);
      log.warn('scrape job failed', { reason: input.reason });
    },
  });
}

export type ScrapeActivities = ReturnType<typeof scrapeActivities>;
