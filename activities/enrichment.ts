import { heartbeating } from './heartbeat.ts';
import { ApplicationFailure } from '@temporalio/common';
import { SecretDecryptionError, secretBoxFromConfig } from '../src/crypto/secret-box.ts';
import { failBulkJob } from '../src/enrichment/repository.ts';
import { markJobStarted } from '../src/jobs/repository.ts';
import { enrichBulkBatch } from '../src/enrichment/engine.ts';
import type { BatchInput, BatchStep, ProfileLookup, SingleEnrichmentInput, SingleEnrichmentResult } from '../src/enrichment/messages.ts';
import type { EnrichmentClients } from '../src/enrichment/clients.ts';
import { lookupProfile, settleProfile } from '../src/enrichment/engine-single.ts';
import type { ActivityDeps } from './deps.ts';
import { finderDeps } from './finder.ts';
import { FinderProvider } from '../src/finder/engine-provider.ts';
import { jobActivities } from './job-gone.ts';
import { toActivityFailure } from './provider-failure.ts';
import { log } from '../src/log.ts';

/** Provider failures as Temporal failures; an organization key that no longer decrypts cannot be retried either. */
function asFailure(error: unknown): unknown {
  if (error instanceof SecretDecryptionError) {
    return ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: true });
  }
  return toActivityFailure(error);
}

export function enrichmentActivities(deps: ActivityDeps) {
  const clients: EnrichmentClients = {
    config: deps.config,
    providers: { finder: new FinderProvider(finderDeps(deps)), ...deps.enrichmentProviders },
    prober: deps.prober,
    secrets: secretBoxFromConfig(deps.config),
  };
  const em = () => deps.orm.em.fork();
  const engine = { orm: deps.orm, clients, batchSize: deps.config.ENRICHMENT_BATCH_SIZE };

  return jobActivities({
    /** Single enrichment, step 1: cache, then the waterfall for what the cache does not settle. Charges nothing. */
    async lookupEnrichmentProfile(input: SingleEnrichmentInput): Promise<ProfileLookup> {
      try {
        return await lookupProfile(em(), clients, input);
      } catch (error) {
        throw asFailure(error);
      }
    },

    /** Single enrichment, step 2: charge, cache and record the answer in one transaction (idempotent). */
    settleEnrichmentProfile(input: SingleEnrichmentInput & { lookup: ProfileLookup }): Promise<SingleEnrichmentResult> {
      return settleProfile(em(), clients, input, input.lookup);
    },

    async beginBulkEnrichment(input: { jobId: string }): Promise<void> {
      await markJobStarted(em(), 'enrichment_job', input.jobId);
    },

    /** One batch of a bulk job; commits exactly once per cursor position. */
    async enrichBulkBatch(input: BatchInput): Promise<BatchStep> {
      try {
        return await heartbeating((run) => enrichBulkBatch(engine, input, run));
      } catch (error) {
        throw asFailure(error);
      }
    },

    async failBulkEnrichment(input: { jobId: string; reason: string }): Promise<void> {
      await failBulkJob(em(), input.jobId, input.reason);
      log.warn('bulk enrichment failed', { reason: input.reason });
    },
  });
}

export type EnrichmentActivities = ReturnType<typeof enrichmentActivities>;
