import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler } from '@temporalio/workflow';
import type { ScrapeActivities } from '../activities/scrape.ts';
import { pauseScrapeSignal, resumeScrapeSignal, type ScrapeWorkflowInput } from '../src/scrape/messages.ts';
import { emitJobEvent } from './job-events.ts';
import { endWithFailure, HEARTBEAT_TIMEOUT, runEventBudget, runIsFull } from './job-lifecycle.ts';

/** The run budget scrape jobs had before the one continue-as-new rule (workflows/job-lifecycle.ts). */
const LEGACY_RUN_BUDGET = 1_000;
/** While paused, the job's status is re-read this often, in case a resume signal never arrived. */
const PAUSED_RECHECK = '15 minutes';

const { processScrapeBatch } = proxyActivities<ScrapeActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    // About ten minutes of a failing provider before the job is given up as failed.
    maximumAttempts: 14,
    nonRetryableErrorTypes: ['ProviderAuthError'],
  },
});

// Bookkeeping in our own database: retried until it works.
const { completeScrapeJob, failScrapeJob, readScrapeJobControl } = proxyActivities<ScrapeActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Searches a scrape job's items batch by batch (the activity reads them by cursor from the database)
 * until none is pending. Pause holds the workflow between batches; the running batch sees the paused
 * status within a fraction of a second and stops starting items.
 */
export async function scrapeWorkflow(input: ScrapeWorkflowInput): Promise<void> {
  const { jobId } = input;
  let afterRow = input.afterRow ?? 0;
  let held = input.held ?? false;
  let version = input.controlVersion ?? 0;
  // The newest decision wins, whether it came by signal or by reading the job's status.
  const apply = (controlVersion: number, hold: boolean) => {
    if (controlVersion > version) {
      version = controlVersion;
      held = hold;
    }
  };
  setHandler(pauseScrapeSignal, ({ version: v }) => apply(v, true));
  setHandler(resumeScrapeSignal, ({ version: v }) => apply(v, false));

  try {
    const budget = runEventBudget(() => LEGACY_RUN_BUDGET);
    for (;;) {
      if (held) {
        if (!(await condition(() => !held, PAUSED_RECHECK))) {
          const current = await readScrapeJobControl(jobId);
          if (current.status === 'completed' || current.status === 'failed') return await emitJobEvent(`scrape.${current.status}`, jobId);
          apply(current.controlVersion, current.status === 'paused');
        }
        continue;
      }

      const batch = await processScrapeBatch({ jobId, afterRow });
      afterRow = batch.afterRow;
      apply(batch.controlVersion, batch.status === 'paused');
      if (batch.status === 'completed' || batch.status === 'failed') return await emitJobEvent(`scrape.${batch.status}`, jobId);
      if (batch.outcome === 'done') {
        if (await completeScrapeJob(jobId)) return await emitJobEvent('scrape.completed', jobId);
        // Something is still pending before the cursor: sweep from the start (pending items only).
        afterRow = 0;
      }

      if (runIsFull(budget)) {
        await condition(allHandlersFinished);
        return await continueAsNew<typeof scrapeWorkflow>({ jobId, afterRow, held, controlVersion: version });
      }
    }
  } catch (error) {
    await endWithFailure({ kind: 'scrape', jobId, provider: 'search provider', recordFailure: (reason) => failScrapeJob({ jobId, reason }) }, error);
  }
}

