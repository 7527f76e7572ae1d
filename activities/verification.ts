import { heartbeating } from './heartbeat.ts';
import { jobActivities } from './job-gone.ts';
import {
  completeVerificationJob,
  smtpStageExtent,
  failVerificationJob,
  finishSmtpStage,
  recordDecision,
  loadVerificationWork,
} from '../src/verification/repository-work.ts';
import type { Decision, DecisionResult, VerificationStage } from '../src/domain/verification.ts';
import type { ActivityDeps } from './deps.ts';
import { toActivityFailure } from './provider-failure.ts';
import { probeSlice, type SliceInput } from '../src/verification/engine.ts';
import { awaitJobCreation, writeNextSnapshotRange } from '../src/verification/repository-snapshot.ts';
import { analyzeListIds, leadsMisjudged } from '../src/verification/repository-write-back.ts';
import { retryDeferred } from '../src/verification/engine-greylist.ts';
import { assessCatchAlls, learnTemplates } from '../src/verification/engine-catch-all.ts';
import { hasUnscoredCatchAll } from '../src/verification/repository-catch-all.ts';
import { verifyByProvider } from '../src/verification/engine-api.ts';
import { deferredCount, stampDeferredRetry } from '../src/verification/repository-deferred.ts';
import { log } from '../src/log.ts';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * How the workflow cuts the SMTP stage: ranges of `sliceSize` domains, `window` ranges in flight, over the domains
 * numbered up to `writtenSeq` while the job's addresses are still being written (`writeSnapshotRange`).
 */
export interface SmtpPlan {
  domainCount: number;
  /** More domains than `domainCount` are to come: the job's count was not finished (absent in older histories). */
  counting?: boolean;
  writtenSeq: number;
  sliceSize: number;
  window: number;
  /** The planner misjudges the job's list: `analyzeListIds` should run beside the first slices (absent in older histories). */
  analyzeLeads?: boolean;
}

/** When the later greylisting passes are due (SMTP_GREYLIST_SCHEDULE) and how many addresses wait for them. */
export interface GreylistPlan {
  scheduleMs: number[];
  deferred: number;
}

/** The SMTP stage ended (its next stage), or the plan of what is left before its end. */
export type SmtpStageEnd = { stage: VerificationStage } | { plan: GreylistPlan };

export function verificationActivities(deps: ActivityDeps) {
  const { orm, prober, verificationProvider: provider, config } = deps;
  const greylistPlan = async (em: EntityManager, jobId: string): Promise<GreylistPlan> => ({
    scheduleMs: config.SMTP_GREYLIST_SCHEDULE,
    deferred: await deferredCount(em, jobId),
  });
  return jobActivities({
    /**
     * Enough domains in flight to keep every SMTP connection of the worker busy (about twice the
     * connection limit), in ranges small enough that one slow domain holds back few others.
     */
    async planSmtpStage({ jobId }: { jobId: string }): Promise<SmtpPlan> {
      const em = orm.em.fork();
      // The workflow starts before its job's first range is committed (startVerificationJob).
      await awaitJobCreation(em, jobId);
      const { listId } = await loadVerificationWork(em, jobId);
      const sliceSize = Math.max(1, Math.ceil(config.SMTP_PROBE_CONCURRENCY / 4));
      const { domainCount, counting, writtenSeq, totalEmails } = await smtpStageExtent(em, jobId);
      // While the job is still counted, its total so far (the first range's) is the bound the list is judged by.
      const analyzeLeads = await leadsMisjudged(em, listId, totalEmails);
      return { domainCount, counting, writtenSeq, sliceSize, window: 8, analyzeLeads };
    },

    /**
     * The lead statistics the first write-back needs when the planner misjudged the list (repository-write-back.ts):
     * run beside the first slices, whose first results are stored a few round trips later, rather than before them
     * (40–80 ms before the first RCPT on a freshly imported list among 310,000 leads).
     */
    async analyzeLeads(): Promise<void> {
      // Only the write-back's speed depends on it: a failure (the table's lock held elsewhere past the query timeout,
      // an index built concurrently) is logged, never retried, and holds the stage's end back no longer than that.
      await analyzeListIds(orm.em.fork()).then(
        () => log.info('lead table analyzed: the planner did not know a job’s list'),
        (error: unknown) => log.warn('lead table not analyzed; the write-back may run slower', { error: String(error) }),
      );
    },

    /** The job's next range of addresses (repository-snapshot.ts); returns the last domain seq now written and how many the job has. */
    async writeSnapshotRange({ jobId }: { jobId: string }): Promise<{ writtenSeq: number; domainCount: number }> {
      return writeNextSnapshotRange(orm.em.fork(), jobId);
    },

    async probeDomainSlice(input: SliceInput): Promise<{ domains: number; written: number }> {
      return heartbeating((run) => probeSlice({ orm, prober }, input, run));
    },

    /**
     * The waits before the later attempts of deferred addresses (`SMTP_GREYLIST_SCHEDULE`, read once
     * per job and then kept in the workflow history) and how many addresses are deferred now.
     */
    async planGreylistRetries({ jobId }: { jobId: string }): Promise<GreylistPlan> {
      const em = orm.em.fork();
      await loadVerificationWork(em, jobId);
      return greylistPlan(em, jobId);
    },

    /**
     * The SMTP stage's end in this one step when nothing is left before it (no address deferred, and no Catch-All
     * result to assess when `assessCatchAlls`): most jobs' end, seen without waiting on two more workflow tasks.
     * Otherwise the greylisting plan, for the steps that remain.
     */
    async settleSmtpStage({ jobId, assessCatchAlls }: { jobId: string; assessCatchAlls: boolean }): Promise<SmtpStageEnd> {
      const em = orm.em.fork();
      await loadVerificationWork(em, jobId);
      const plan = await greylistPlan(em, jobId);
      if (plan.deferred > 0 || (assessCatchAlls && (await hasUnscoredCatchAll(em, jobId)))) return { plan };
      return { stage: await finishSmtpStage(em, jobId) };
    },

    /** Shows when the next later attempt is due (the job's `nextRetryAt`); `at` is an ISO timestamp. */
    async scheduleDeferredRetry({ jobId, at }: { jobId: string; at: string }): Promise<void> {
      const em = orm.em.fork();
      await loadVerificationWork(em, jobId);
      await stampDeferredRetry(em, jobId, new Date(at));
    },

    /** One later attempt for every deferred address; returns how many are still deferred. */
    async retryDeferredAddresses({ jobId }: { jobId: string }): Promise<{ deferred: number }> {
      return heartbeating((run) => retryDeferred({ orm, prober }, jobId, run));
    },

    /**
     * The Catch-All results after the SMTP stage: the directory where it is on, then a score and its reasons
     * (src/verification/engine-catch-all.ts); returns how many still wait for a directory verdict.
     */
    async assessCatchAlls(input: { jobId: string; retry: boolean }): Promise<{ assessed: number; directoryPending: number }> {
      return heartbeating((run) => assessCatchAlls({ orm, directory: deps.directory }, input, run));
    },

    /** The job's Valid addresses teach the domains' templates, once, after the job is done. */
    async learnTemplates({ jobId }: { jobId: string }): Promise<{ taught: number }> {
      return { taught: await heartbeating((run) => learnTemplates({ orm }, jobId, run)) };
    },

    async finishSmtpStage({ jobId }: { jobId: string }) {
      return { stage: await finishSmtpStage(orm.em.fork(), jobId) };
    },

    async recordVerificationDecision({
      jobId,
      decision,
      catchAllMaxScore,
    }: {
      jobId: string;
      decision: Decision;
      /** Absent in histories recorded before score-bounded fills. */
      catchAllMaxScore?: number;
    }): Promise<DecisionResult> {
      return recordDecision(orm.em.fork(), jobId, { decision, catchAllMaxScore });
    },

    /** The provider stage for up to a minute (src/verification/engine-api.ts); returns how many are still waiting. */
    async verifyByApi({ jobId }: { jobId: string }): Promise<{ sent: number; remaining: number }> {
      try {
        return await heartbeating((run) => verifyByProvider({ orm, provider }, jobId, run));
      } catch (error) {
        throw toActivityFailure(error);
      }
    },

    async completeVerification({ jobId }: { jobId: string }): Promise<void> {
      await completeVerificationJob(orm.em.fork(), jobId);
      log.info('verification job completed');
    },

    /** Records why the job stopped (a job deleted meanwhile is gone, as for every job kind). */
    async failVerification({ jobId, reason }: { jobId: string; reason: string }): Promise<void> {
      await failVerificationJob(orm.em.fork(), jobId, reason);
      log.warn('verification job failed', { reason });
    },
  });
}

export type VerificationActivities = ReturnType<typeof verificationActivities>;
