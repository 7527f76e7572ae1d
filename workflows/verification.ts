import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { GreylistPlan, VerificationActivities } from '../activities/verification.ts';
import { emitJobEvent } from './job-events.ts';
import { endWithFailure, HEARTBEAT_TIMEOUT, RUN_EVENT_BUDGET, runEventBudget, runIsFull } from './job-lifecycle.ts';
import {
  acceptsDecision,
  type Decision,
  FINISH_PREDATES_JOB,
  FINISH_DEFERRED_REFUSAL,
  stageAfterDecision,
  type VerificationStage,
} from '../src/domain/verification.ts';
import {
  type DecisionInput,
  decisionUpdate,
  finishDeferredUpdate,
  invalidStateFailure,
  type VerificationWorkflowInput,
} from '../src/verification/messages.ts';

// Short database steps: retried until the database answers. They run as local activities (in this worker, no
// task through the server), because each sits on the path a user waits on and an ordinary activity adds a
// round trip through the server and a workflow task to each. Histories recorded before the patch replay
// their ordinary activities.
const DB_STEPS = { startToCloseTimeout: '2m', retry: { initialInterval: '1s', maximumInterval: '30s' } } as const;
const dbTasks = proxyActivities<VerificationActivities>(DB_STEPS);
const dbLocal = proxyLocalActivities<VerificationActivities>(DB_STEPS);
const db = () => (patched('local-db-steps') ? dbLocal : dbTasks);
// SMTP slices may queue behind the worker's connection limit for long: liveness comes from heartbeats.
const smtp = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '24h',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '2s', maximumInterval: '1m', maximumAttempts: 20 },
});
// Provider batches: backoff between attempts; a bad key is non-retryable and ends the job at once.
const api = proxyActivities<VerificationActivities>({
  startToCloseTimeout: '10m',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '2m', maximumAttempts: 8 },
});


/** What the workflow and its Update handlers share; only the stage and the user's requests, never addresses. */
interface JobState {
  stage: VerificationStage;
  // True while the SMTP stage's end is being stored: a decision may already arrive (the database
  // shows awaiting_decision a moment before this workflow learns it); it waits for the outcome.
  finishingSmtp: boolean;
  decision: Decision | null;
  decisionStored: boolean;
  // Why storing the decision failed (the job gone): the main path ends on it as on its own failures.
  decisionFailure: unknown;
  finishDeferred: boolean;
}

/**
 * One verification job (CONTRACT §3): the SMTP stage as concurrent slices of domains, then for
 * smtp_api_fallback a wait for the user's decision (an Update; none within the timeout means
 * accept_current), then the provider for the chosen gaps (or, for api_only, every pre-checked
 * address). The workflow carries only the job id and cursors; the database holds the addresses.
 */
export async function verificationWorkflow(input: VerificationWorkflowInput): Promise<void> {
  const { jobId } = input;
  const state: JobState = {
    stage: input.resume?.phase === 'api' ? 'api_verifying' : 'smtp_verifying',
    finishingSmtp: false,
    decision: null,
    decisionStored: false,
    decisionFailure: null,
    finishDeferred: input.resume?.phase === 'smtp' && input.resume.finishDeferred === true,
  };
  // Histories recorded before the user could finish the deferred addresses wait out the whole schedule.
  const finishable = patched('finish-deferred');
  const greylistWait: GreylistWait | null = finishable ? { finishRequested: () => state.finishDeferred } : null;
  acceptFinishDeferred(state, finishable);
  acceptDecision(jobId, state);

  try {
    // Histories recorded before the run budget only continued as new when Temporal suggested it.
    const budget = runEventBudget(() => (patched('bounded-run-history') ? RUN_EVENT_BUDGET : null));
    if (input.resume?.phase !== 'api') await verifyBySmtp(input, state, budget, greylistWait);
    if (state.stage === 'awaiting_decision') await awaitDecision(input, state);
    if (state.stage === 'api_verifying') await verifyByApi(input, state, budget);
  } catch (error) {
    return await endWithFailure(
      {
        kind: 'verification',
        jobId,
        provider: 'verification provider',
        recordFailure: (reason) => db().failVerification({ jobId, reason }),
        onFailed: () => (state.stage = 'failed'),
      },
      error,
    );
  }
  await emitJobEvent('verification.completed', jobId);
  // After the user's answer is out: what this job's Valid addresses teach later Catch-All scores and the finder.
  // The job is done whatever happens here: a list deleted meanwhile only means nothing is learned.
  if (patched('catch-all-truth')) await smtp.learnTemplates({ jobId }).catch(() => undefined);
  await condition(allHandlersFinished);
}

/** The user's word to stop waiting for deferred (greylisted) addresses; they become Unknown. */
function acceptFinishDeferred(state: JobState, finishable: boolean): void {
  setHandler(
    finishDeferredUpdate,
    () => {
      state.finishDeferred = true;
    },
    {
      // While the stage's end is being stored the deferred addresses become Unknown anyway: accepted.
      validator: () => {
        if (state.stage !== 'smtp_verifying') throw invalidStateFailure(state.stage, FINISH_DEFERRED_REFUSAL);
        if (!finishable) throw invalidStateFailure(state.stage, FINISH_PREDATES_JOB);
      },
    },
  );
}

/** The user's decision on the SMTP stage's gaps: stored before the Update answers, at most once. */
function acceptDecision(jobId: string, state: JobState): void {
  setHandler(
    decisionUpdate,
    async ({ decision: chosen, catchAllMaxScore }) => {
      state.decision = chosen; // claimed before the first await: a second decision's validator now refuses
      if (!acceptsDecision(state.stage)) {
        await condition(() => !state.finishingSmtp);
        if (!acceptsDecision(state.stage)) {
          state.decision = null;
          throw invalidStateFailure(state.stage);
        }
      }
      state.stage = stageAfterDecision(chosen);
      try {
        const stored = await db().recordVerificationDecision({ jobId, decision: chosen, catchAllMaxScore });
        state.decisionStored = true;
        return stored;
      } catch (error) {
        state.decisionFailure = error;
        throw error;
      }
    },
    {
      validator: (_input: DecisionInput) => {
        if (state.decision !== null || !(acceptsDecision(state.stage) || state.finishingSmtp))
          throw invalidStateFailure(state.stage);
      },
    },
  );
}

/**
 * The SMTP stage up to its stored end: the slices (continuing as new when the run is full), the
 * greylisting retries, the Catch-All assessment, then the stage after it (completed or awaiting_decision).
 */
async function verifyBySmtp(
  input: VerificationWorkflowInput,
  state: JobState,
  budget: number | null,
  greylistWait: GreylistWait | null,
): Promise<void> {
  const { jobId } = input;
  const firstSeq = input.resume?.phase === 'smtp' ? input.resume.nextSeq : 1;
  const nextSeq = await runSmtpStage(input, firstSeq, budget);
  if (nextSeq !== null) {
    await condition(allHandlersFinished);
    return await continueAsNew<typeof verificationWorkflow>({
      ...input,
      resume: { phase: 'smtp', nextSeq, ...(state.finishDeferred ? { finishDeferred: true } : {}) },
    });
  }
  // Histories recorded before the settled end take the steps below one workflow task each.
  let plan: GreylistPlan | null = null;
  if (patched('settled-smtp-end')) {
    const end = await finishingSmtp(state, () => db().settleSmtpStage({ jobId, assessCatchAlls: input.method !== 'api_only' }));
    if ('stage' in end) {
      state.stage = end.stage;
      return;
    }
    plan = end.plan;
  }
  // Histories recorded before the greylist schedule existed replay without it.
  if (patched('greylist-schedule')) await retryDeferredOnSchedule(jobId, greylistWait, plan);
  if (input.method !== 'api_only' && patched('catch-all-truth')) await assessCatchAllResults(jobId);
  state.stage = (await finishingSmtp(state, () => db().finishSmtpStage({ jobId }))).stage;
}

/**
 * Runs a step that may end the SMTP stage: meanwhile a decision may already arrive (the database shows
 * awaiting_decision a moment before this workflow learns it), and it waits for the step's outcome.
 */
async function finishingSmtp<T>(state: JobState, step: () => Promise<T>): Promise<T> {
  state.finishingSmtp = true;
  try {
    return await step();
  } finally {
    state.finishingSmtp = false;
  }
}

/** Waits for the user's decision and its storing; none within the timeout is stored as accept_current. */
async function awaitDecision(input: VerificationWorkflowInput, state: JobState): Promise<void> {
  const { jobId } = input;
  await emitJobEvent('verification.awaiting_decision', jobId);
  const decided = await condition(() => state.decision !== null, input.decisionTimeoutMs);
  if (decided) {
    await condition(() => state.decisionStored || state.decisionFailure !== null);
    if (!state.decisionStored) throw state.decisionFailure;
  } else {
    state.decision = 'accept_current';
    state.stage = 'completed';
    await db().recordVerificationDecision({ jobId, decision: 'accept_current' });
  }
}

/** Provider batches until none is left (continuing as new when the run is full), then the job completes. */
async function verifyByApi(input: VerificationWorkflowInput, state: JobState, budget: number | null): Promise<void> {
  const { jobId } = input;
  for (;;) {
    const { remaining } = await api.verifyByApi({ jobId });
    if (remaining === 0) break;
    if (runIsFull(budget)) {
      await condition(allHandlersFinished);
      return await continueAsNew<typeof verificationWorkflow>({ ...input, resume: { phase: 'api' } });
    }
  }
  await db().completeVerification({ jobId });
  state.stage = 'completed';
}

/**
 * Runs slices of `sliceSize` domains (by their seq numbers), `window` at a time, until every domain
 * is done or the run is full (runIsFull). Returns the seq to resume from, or null when done.
 * While the job's addresses are still being written, one activity at a time writes the next range and
 * slices start only on domains already written; histories recorded before the ranges had every address
 * written at creation.
 */
async function runSmtpStage(
  input: VerificationWorkflowInput,
  firstSeq: number,
  budget: number | null,
): Promise<number | null> {
  const { jobId, method } = input;
  const plan = await db().planSmtpStage({ jobId });
  // Beside the first slices, not before them. Caught: a stage that fails before awaiting it must not leave it rejected.
  const analyzed = plan.analyzeLeads ? dbTasks.analyzeLeads().catch(() => undefined) : undefined;
  let writtenSeq = patched('snapshot-ranges') ? plan.writtenSeq : plan.domainCount;
  // Until the job's count is finished, more domains than counted may follow; the next range's answer says how many.
  let domainCount = plan.counting ? Number.MAX_SAFE_INTEGER : plan.domainCount;
  const running = new Map<string, Promise<string>>();
  const slices = () => running.size - (running.has('snapshot') ? 1 : 0);
  let nextSeq = firstSeq;
  for (;;) {
    if (writtenSeq < domainCount && !running.has('snapshot') && !runIsFull(budget)) {
      running.set(
        'snapshot',
        dbTasks.writeSnapshotRange({ jobId }).then((written) => {
          writtenSeq = written.writtenSeq;
          // Absent in histories recorded before the count was finished after creation.
          domainCount = written.domainCount ?? domainCount;
          return 'snapshot';
        }),
      );
    }
    while (nextSeq <= writtenSeq && slices() < plan.window && !runIsFull(budget)) {
      const fromSeq = nextSeq;
      const toSeq = Math.min(writtenSeq, fromSeq + plan.sliceSize - 1);
      running.set(
        `slice-${fromSeq}`,
        smtp.probeDomainSlice({ jobId, method, fromSeq, toSeq }).then(() => `slice-${fromSeq}`),
      );
      nextSeq = toSeq + 1;
    }
    if (running.size === 0) break;
    running.delete(await Promise.race(running.values()));
  }
  await analyzed;
  return nextSeq <= domainCount ? nextSeq : null;
}

/** Waits before the later directory passes over addresses that got no verdict (throttling, errors). */
const DIRECTORY_RETRY_WAITS = ['10s', '30s'] as const;

/**
 * Scores every Catch-All result (and asks the Microsoft directory where it is on), then, while the directory left
 * addresses without a verdict, waits on a durable timer and asks again at a lower rate. Those still without one keep
 * their SMTP verdict and score.
 */
async function assessCatchAllResults(jobId: string): Promise<void> {
  let { directoryPending } = await smtp.assessCatchAlls({ jobId, retry: false });
  for (const wait of DIRECTORY_RETRY_WAITS) {
    if (directoryPending === 0) return;
    await sleep(wait);
    ({ directoryPending } = await smtp.assessCatchAlls({ jobId, retry: true }));
  }
}

/** How a patched workflow waits between greylisting passes: its due time shown, and cut short on the user's word. */
interface GreylistWait {
  finishRequested: () => boolean;
}

/**
 * Later attempts for addresses still deferred (greylisting) after the in-session ones: a durable
 * timer per step of SMTP_GREYLIST_SCHEDULE, then one attempt for all of them, until none is
 * deferred, the schedule is spent or the user finishes them (finishSmtpStage then makes the rest
 * Unknown). Only counts cross into the workflow; the addresses stay in the database.
 */
async function retryDeferredOnSchedule(jobId: string, wait: GreylistWait | null, planned: GreylistPlan | null): Promise<void> {
  const plan = planned ?? (await db().planGreylistRetries({ jobId }));
  let deferred = plan.deferred;
  for (const waitMs of plan.scheduleMs) {
    if (deferred === 0) return;
    if (wait) {
      if (wait.finishRequested()) return;
      // Workflow time: the stamp is in the history, the same on every replay.
      await db().scheduleDeferredRetry({ jobId, at: new Date(Date.now() + waitMs).toISOString() });
      if (await condition(wait.finishRequested, waitMs)) return;
    } else {
      await sleep(waitMs);
    }
    ({ deferred } = await smtp.retryDeferredAddresses({ jobId }));
  }
}
