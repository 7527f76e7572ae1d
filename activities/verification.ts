import { heartbeating } from './heartbeat.ts';
import { jobActivities } from './job-gone.ts';
import { JobGoneError } from '../src/errors.ts';
import {
  completeVerificationJob,
  verificationDomainCount,
  failVerificationJob,
  finishSmtpStage,
  pendingApiAddresses,
  pendingApiCount,
  recordApiVerdicts,
  recordDecision,
  loadVerificationWork,
} from '../src/verification/repository-work.ts';
import { API_PRICE_MICROS, type Decision, type DecisionResult } from '../src/domain/verification.ts';
import type { ActivityDeps } from './deps.ts';
import { toActivityFailure } from './provider-failure.ts';
import { probeSlice, type SliceInput } from '../src/verification/engine.ts';
import { retryDeferred } from '../src/verification/engine-greylist.ts';
import { deferredCount } from '../src/verification/repository-deferred.ts';
import { log } from '../src/log.ts';

/** How the workflow cuts the SMTP stage: ranges of `sliceSize` domains, `window` ranges in flight. */
export interface SmtpPlan {
  domainCount: number;
  sliceSize: number;
  window: number;
}

/** One API activity sends batches for at most this long, then hands back to the workflow. */
const API_ACTIVITY_BUDGET_MS = 60_000;

export function verificationActivities(deps: ActivityDeps) {
  const { orm, prober, verificationProvider: provider, config } = deps;
  return jobActivities({
    /**
     * Enough domains in flight to keep every SMTP connection of the worker busy (about twice the
     * connection limit), in ranges small enough that one slow domain holds back few others.
     */
    async planSmtpStage({ jobId }: { jobId: string }): Promise<SmtpPlan> {
      const em = orm.em.fork();
      await loadVerificationWork(em, jobId);
      const sliceSize = Math.max(1, Math.ceil(config.SMTP_PROBE_CONCURRENCY / 4));
      return { domainCount: await verificationDomainCount(em, jobId), sliceSize, window: 8 };
    },

    async probeDomainSlice(input: SliceInput): Promise<{ domains: number; written: number }> {
      return heartbeating((ctx) => probeSlice(orm, prober, input, ctx.cancellationSignal));
    },

    /**
     * The waits before the later attempts of deferred addresses (`SMTP_GREYLIST_SCHEDULE`, read once
     * per job and then kept in the workflow history) and how many addresses are deferred now.
     */
    async planGreylistRetries({ jobId }: { jobId: string }): Promise<{ scheduleMs: number[]; deferred: number }> {
      const em = orm.em.fork();
      await loadVerificationWork(em, jobId);
      return { scheduleMs: config.SMTP_GREYLIST_SCHEDULE, deferred: await deferredCount(em, jobId) };
    },

    /** One later attempt for every deferred address; returns how many are still deferred. */
    async retryDeferredAddresses({ jobId }: { jobId: string }): Promise<{ deferred: number }> {
      return heartbeating(async (ctx) => {
        await loadVerificationWork(orm.em.fork(), jobId);
        return retryDeferred(orm, prober, jobId, ctx.cancellationSignal);
      });
    },

    async finishSmtpStage({ jobId }: { jobId: string }) {
      return { stage: await finishSmtpStage(orm.em.fork(), jobId) };
    },

    async recordVerificationDecision({
      jobId,
      decision,
    }: {
      jobId: string;
      decision: Decision;
    }): Promise<DecisionResult> {
      return recordDecision(orm.em.fork(), jobId, decision);
    },

    /**
     * Sends the addresses marked for the provider in batches of its `maxBatch`, each batch's verdicts
     * and spend stored in one transaction. Returns how many are still waiting when the time budget ends.
     */
    async verifyByApi({ jobId }: { jobId: string }): Promise<{ sent: number; remaining: number }> {
      return heartbeating(async (_ctx, beat) => {
        const em = orm.em.fork();
        const job = await loadVerificationWork(em, jobId);
        const started = Date.now();
        let sent = 0;
        while (Date.now() - started < API_ACTIVITY_BUDGET_MS) {
          const batch = await pendingApiAddresses(em, jobId, provider.maxBatch);
          if (batch.length === 0) return { sent, remaining: 0 };
          let verdicts;
          try {
            verdicts = await provider.verify(batch.map((a) => a.email));
          } catch (error) {
            throw toActivityFailure(error);
          }
          const rows = batch.map((a, i) => ({
            id: a.id,
            email: a.email,
            result: verdicts[i]?.result ?? 'Unknown',
            reason: verdicts[i]?.reason ?? 'no verdict returned',
          }));
          await recordApiVerdicts(em, job, rows, provider.name, API_PRICE_MICROS);
          sent += batch.length;
          beat();
        }
        return { sent, remaining: await pendingApiCount(em, jobId) };
      });
    },

    async completeVerification({ jobId }: { jobId: string }): Promise<void> {
      await completeVerificationJob(orm.em.fork(), jobId);
      log.info('verification job completed');
    },

    /** Records why the job stopped; a job deleted meanwhile needs no record. */
    async failVerification({ jobId, reason }: { jobId: string; reason: string }): Promise<void> {
      try {
        await failVerificationJob(orm.em.fork(), jobId, reason);
        log.warn('verification job failed', { reason });
      } catch (error) {
        if (!(error instanceof JobGoneError)) throw error;
      }
    },
  });
}

export type VerificationActivities = ReturnType<typeof verificationActivities>;
