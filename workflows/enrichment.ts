import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { RetryPolicy } from '@temporalio/common';
import type { EnrichmentActivities } from '../activities/enrichment.ts';
import type { BulkEnrichmentInput, SingleEnrichmentInput, SingleEnrichmentResult } from '../src/enrichment/messages.ts';
import { emitJobEvent } from './job-events.ts';
import { endWithFailure, HEARTBEAT_TIMEOUT, runEventBudget, runIsFull } from './job-lifecycle.ts';

/** The run budget bulk enrichment had before the one continue-as-new rule (workflows/job-lifecycle.ts). */
const LEGACY_RUN_BUDGET = 2_000;

const PROVIDER_RETRY = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  nonRetryableErrorTypes: ['ProviderAuthError', 'SecretDecryptionError'],
} satisfies RetryPolicy;

const { enrichBulkBatch } = proxyActivities<EnrichmentActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  // About ten minutes of failing providers before the job is given up as failed.
  retry: { ...PROVIDER_RETRY, maximumAttempts: 14 },
});

// A person waits for the answer: a few quick attempts, then the request fails.
const { lookupEnrichmentProfile } = proxyActivities<EnrichmentActivities>({
  startToCloseTimeout: '45 seconds',
  retry: { ...PROVIDER_RETRY, maximumInterval: '5 seconds', maximumAttempts: 3 },
});

// Bookkeeping in our own database: retried until it works (settling is idempotent).
const { settleEnrichmentProfile, beginBulkEnrichment, failBulkEnrichment } = proxyActivities<EnrichmentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds' },
});

/** Single enrichment: look up (cache, waterfall), then charge and record; the API answers with the result. */
export async function singleEnrichmentWorkflow(input: SingleEnrichmentInput): Promise<SingleEnrichmentResult> {
  const lookup = await lookupEnrichmentProfile(input);
  return settleEnrichmentProfile({ ...input, lookup });
}

/**
 * Bulk enrichment over a list, batch by batch from the job's cursor until the activity reports the job
 * done (all leads, or credits ran out). A failure that retries cannot fix fails the job with its reason.
 */
export async function bulkEnrichmentWorkflow(input: BulkEnrichmentInput): Promise<void> {
  const { jobId } = input;
  let cursor = input.cursor ?? null;
  try {
    const budget = runEventBudget(() => LEGACY_RUN_BUDGET);
    if (input.cursor === undefined) await beginBulkEnrichment({ jobId });
    for (;;) {
      const step = await enrichBulkBatch({ jobId, after: cursor });
      if (step.done) return await emitJobEvent('enrichment.completed', jobId);
      cursor = step.cursor;
      if (runIsFull(budget)) {
        return await continueAsNew<typeof bulkEnrichmentWorkflow>({ jobId, cursor });
      }
    }
  } catch (error) {
    await endWithFailure({ kind: 'enrichment', jobId, provider: 'enrichment provider', recordFailure: (reason) => failBulkEnrichment({ jobId, reason }) }, error);
  }
}

