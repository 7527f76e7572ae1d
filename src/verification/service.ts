/**
 * The verification job's application service: what `/api/verification` (session) and `/api/external/verification`
 * (API key) do, with plain arguments. Each route file declares its own contract and auth, then calls one of these.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import {
  allVerificationResults,
  catchAllByScore,
  createVerificationJob,
  domainStats,
  getVerificationJob,
  leadColumnsOf,
  type ResultLeadColumns,
  pageVerificationJobs,
  pageVerificationResults,
  type ResultFilter,
  type JobFilter,
  viewVerificationJob,
  viewVerificationJobs,
} from './repository.ts';
import {
  acceptsDecision,
  type DecisionChoice,
  decisionRefusal,
  FINISH_DEFERRED_REFUSAL,
  VERIFICATION_STAGES,
  type VerificationMethod,
} from '../domain/verification.ts';
import { workflowId } from '../temporal/shared.ts';
import type { JobContext } from '../jobs/context.ts';
import { startWorkflow } from '../jobs/start.ts';
import { type JobView, liveView } from '../jobs/views.ts';
import { decisionUpdate, finishDeferredUpdate, INVALID_STATE_FAILURE, verificationWorkflowType } from './messages.ts';
import { invalidState, JobGoneError, notFound } from '../errors.ts';
import { resultWithTranscript } from './repository-transcript.ts';
import { countJobDomains } from './repository-snapshot.ts';
import { normalizeEmail } from '../domain/email.ts';
import { type JobFacts, toJobDto, type VerificationJobDto } from './views.ts';
import { getList } from '../db/repos/lists.ts';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Creates the job and starts its workflow: within the creating transaction, before the first range is written, so the
 * workflow's first task runs meanwhile (its plan step waits for the commit); a workflow that cannot start rolls the
 * job back.
 */
export async function startVerificationJob(ctx: JobContext, input: { listId: string; verificationMethod: VerificationMethod }): Promise<VerificationJobDto> {
  const created = await createVerificationJob(ctx.em, ctx.organizationId, input.listId, input.verificationMethod, (jobId) =>
    startWorkflow(ctx, {
      kind: 'verification',
      id: jobId,
      organizationId: ctx.organizationId,
      listId: input.listId,
      workflow: verificationWorkflowType,
      args: [{ jobId, method: input.verificationMethod, decisionTimeoutMs: ctx.config.VERIFICATION_DECISION_TIMEOUT }],
    }),
  );
  const { job } = created;
  // The workflow probes the first range meanwhile; the answer (as of the creation) waits for the list's whole count.
  if (!job.domainsCounted) {
    job.totalEmails = await countJobDomains(ctx.em.fork(), job.id).catch((error: unknown) => {
      // The list was deleted meanwhile, and the job with it.
      throw error instanceof JobGoneError ? notFound('List') : error;
    });
  }
  return toJobDto(created);
}

export async function verificationJob(ctx: JobContext, jobId: string): Promise<VerificationJobDto> {
  return toJobDto(await viewVerificationJob(ctx.em, ctx.organizationId, jobId));
}

/** The job as its live stream shows it; each read is a fresh EntityManager, never a cached entity. */
export async function verificationJobLive(ctx: JobContext, jobId: string): Promise<JobView> {
  const dto = toJobDto(await viewVerificationJob(ctx.em.fork(), ctx.organizationId, jobId));
  return liveView(dto.verificationStage, dto);
}

export async function pageVerificationJobDtos(ctx: JobContext, query: JobFilter, offset: number, limit: number) {
  const { rows, total } = await pageVerificationJobs(ctx.em, ctx.organizationId, query, offset, limit);
  return { rows: await verificationJobDtos(ctx.em, rows), total };
}

/** Loaded jobs as their GET route shows them, counts included (also what a webhook event carries: src/webhooks/job-event.ts). */
export async function verificationJobDtos(em: EntityManager, jobs: readonly JobFacts[]): Promise<VerificationJobDto[]> {
  return (await viewVerificationJobs(em, jobs)).map(toJobDto);
}

/** The job with its per-domain statistics (`…/progress`). */
export async function verificationProgress(ctx: JobContext, jobId: string) {
  const view = await viewVerificationJob(ctx.em, ctx.organizationId, jobId);
  return { view, domains: await domainStats(ctx.em, view.job.id) };
}

/** The job with the counts its cost estimate is made of, and its Catch-All results by score (`…/estimate`). */
export async function verificationJobEstimate(ctx: JobContext, jobId: string) {
  const view = await viewVerificationJob(ctx.em, ctx.organizationId, jobId);
  return { view, catchAllByScore: await catchAllByScore(ctx.em, view.job.id) };
}

export async function pageResults(ctx: JobContext, jobId: string, filter: ResultFilter, offset: number, limit: number) {
  const job = await getVerificationJob(ctx.em, ctx.organizationId, jobId);
  return pageVerificationResults(ctx.em, job.id, filter, offset, limit);
}

/**
 * Every result of the job the filter keeps, page by page in address order, for the CSV download; with `withLead`,
 * each with the columns of the first lead of the list holding it. Answers the list's name too (the file's name).
 */
export async function resultPages(ctx: JobContext, jobId: string, filter: ResultFilter, withLead: boolean) {
  const job = await getVerificationJob(ctx.em, ctx.organizationId, jobId);
  const list = await getList(ctx.em, ctx.organizationId, job.list);
  async function* pages() {
    for await (const page of allVerificationResults(ctx.em, job.id, filter)) {
      const leads = withLead ? await leadColumnsOf(ctx.em, list.id, page.map((r) => r.email)) : new Map<string, ResultLeadColumns>();
      yield page.map((result) => ({ result, lead: leads.get(result.email) ?? null }));
    }
  }
  return { listName: list.name, pages: pages() };
}

/** One address's result with its SMTP transcript; the address is matched as the job stored it (lower-cased, ASCII domain). */
export async function resultTranscript(ctx: JobContext, jobId: string, email: string) {
  const job = await getVerificationJob(ctx.em, ctx.organizationId, jobId);
  const found = await resultWithTranscript(ctx.em, job.id, normalizeEmail(email).toLowerCase());
  if (!found) throw notFound('Address in this job');
  return found;
}

/** The workflow's own refusal of an update: the stage it was in and why, when it said so. */
function workflowRefusal(error: unknown): { stage: string; message: string } | null {
  const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === INVALID_STATE_FAILURE) {
    const [stage] = cause.details ?? [];
    if (typeof stage === 'string' && (VERIFICATION_STAGES as readonly string[]).includes(stage)) return { stage, message: cause.message };
  }
  return null;
}

/** The stage a rejected decision met: the workflow's own view when it said so, else the stored one. */
async function rejectedStage(ctx: JobContext, error: unknown, jobId: string): Promise<string> {
  return workflowRefusal(error)?.stage ?? (await getVerificationJob(ctx.em.fork(), ctx.organizationId, jobId)).verificationStage;
}

export async function decideVerificationJob(ctx: JobContext, jobId: string, input: DecisionChoice) {
  const job = await getVerificationJob(ctx.em, ctx.organizationId, jobId);
  const refuse = (stage: string) => invalidState(decisionRefusal(stage), stage);
  if (!acceptsDecision(job.verificationStage)) throw refuse(job.verificationStage);
  const handle = ctx.temporal.workflow.getHandle(workflowId('verification', job.id));
  try {
    // The update returns once the decision and the new stage are stored, so a GET right after shows them.
    return await handle.executeUpdate(decisionUpdate, { args: [input] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
      throw refuse(await rejectedStage(ctx, error, job.id));
    }
    throw error;
  }
}

/**
 * Ends the wait for greylisting servers (CONTRACT §15): the workflow skips the rest of SMTP_GREYLIST_SCHEDULE and
 * ends the SMTP stage with the deferred addresses Unknown. Answers once the workflow took the request; the stage
 * ends a moment later (after an attempt already under way).
 */
export async function finishDeferred(ctx: JobContext, jobId: string): Promise<VerificationJobDto> {
  const before = toJobDto(await viewVerificationJob(ctx.em, ctx.organizationId, jobId));
  const stage = before.verificationStage;
  if (stage !== 'smtp_verifying') throw invalidState(FINISH_DEFERRED_REFUSAL, stage);
  if (before.deferredCount === 0) throw invalidState('No address of this job is waiting for a later attempt', stage);
  const handle = ctx.temporal.workflow.getHandle(workflowId('verification', before.id));
  try {
    await handle.executeUpdate(finishDeferredUpdate);
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
      throw invalidState(workflowRefusal(error)?.message ?? FINISH_DEFERRED_REFUSAL, await rejectedStage(ctx, error, jobId));
    }
    throw error;
  }
  return verificationJob({ ...ctx, em: ctx.em.fork() }, jobId);
}
