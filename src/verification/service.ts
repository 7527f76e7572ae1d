/**
 * Bodies of the verification job routes, shared by `/api/verification` (session) and
 * `/api/external/verification` (API key): each route file declares its own contract and auth, then calls one of these.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Context } from 'hono';
import type { verificationWorkflow } from '../../workflows/verification.ts';
import { createVerificationJob, deleteVerificationJob, getVerificationJob, pageVerificationResults, viewVerificationJob } from './repository.ts';
import { acceptsDecision, decisionRefusal, VERIFICATION_STAGES, type VerificationMethod } from '../domain/verification.ts';
import { workflowId } from '../temporal/shared.ts';
import { startJobWorkflow } from '../jobs/start.ts';
import { decisionUpdate, INVALID_STATE_FAILURE } from './messages.ts';
import type { AppEnv } from '../http/env.ts';
import { streamJob } from '../http/job-stream.ts';
import { invalidState, notFound } from '../errors.ts';
import { resultWithTranscript } from './repository-transcript.ts';
import { normalizeEmail } from '../domain/email.ts';
import { organizationId } from '../http/middleware/session.ts';
import { offsetOf, paginated, type PageQuery } from '../http/schemas/common.ts';
import { toJobDto } from '../jobs/views.ts';
import { type DecisionInputSchema, toResultDto } from '../http/schemas/verification.ts';
import type { z } from '@hono/zod-openapi';
import { requestEm } from '../http/middleware/request-context.ts';

/** Creates the job and starts its workflow; a workflow that cannot start takes its job with it. */
export async function startVerificationJob(c: Context<AppEnv>, input: { listId: string; verificationMethod: VerificationMethod }) {
  const orgId = organizationId(c);
  const { config, temporal } = c.var.deps;
  const created = await createVerificationJob(requestEm(c), orgId, input.listId, input.verificationMethod);
  const { job } = created;
  await startJobWorkflow<typeof verificationWorkflow>(
    temporal,
    config.TEMPORAL_TASK_QUEUE,
    {
      kind: 'verification',
      jobId: job.id,
      organizationId: orgId,
      listId: input.listId,
      workflowType: 'verificationWorkflow',
      args: [{ jobId: job.id, method: input.verificationMethod, decisionTimeoutMs: config.VERIFICATION_DECISION_TIMEOUT }],
    },
    () => deleteVerificationJob(requestEm(c).fork(), job.id),
  );
  return toJobDto(created);
}

export async function verificationJobDto(c: Context<AppEnv>, jobId: string) {
  return toJobDto(await viewVerificationJob(requestEm(c), organizationId(c), jobId));
}

export async function pageResultDtos(c: Context<AppEnv>, jobId: string, query: PageQuery & { result?: Parameters<typeof pageVerificationResults>[2] }) {
  const job = await getVerificationJob(requestEm(c), organizationId(c), jobId);
  const { rows, total } = await pageVerificationResults(requestEm(c), job.id, query.result, offsetOf(query), query.limit);
  return paginated(rows.map(toResultDto), total, query);
}

/** One address's result with its SMTP transcript; the address is matched as the job stored it (lower-cased, ASCII domain). */
export async function resultTranscriptDto(c: Context<AppEnv>, jobId: string, email: string) {
  const job = await getVerificationJob(requestEm(c), organizationId(c), jobId);
  const found = await resultWithTranscript(requestEm(c), job.id, normalizeEmail(email).toLowerCase());
  if (!found) throw notFound('Address in this job');
  return { ...toResultDto(found.row), transcript: found.transcript };
}

/** The stage a rejected decision met: the workflow's own view when it said so, else the stored one. */
async function rejectedStage(c: Context<AppEnv>, error: unknown, jobId: string): Promise<string> {
  const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
  if (cause instanceof ApplicationFailure && cause.type === INVALID_STATE_FAILURE) {
    const [stage] = cause.details ?? [];
    if (typeof stage === 'string' && (VERIFICATION_STAGES as readonly string[]).includes(stage)) return stage;
  }
  return (await getVerificationJob(requestEm(c).fork(), organizationId(c), jobId)).verificationStage;
}

export async function decideVerificationJob(c: Context<AppEnv>, jobId: string, decision: z.infer<typeof DecisionInputSchema>) {
  const job = await getVerificationJob(requestEm(c), organizationId(c), jobId);
  const refuse = (stage: string) => invalidState(decisionRefusal(stage), stage);
  if (!acceptsDecision(job.verificationStage)) throw refuse(job.verificationStage);
  const handle = c.var.deps.temporal.workflow.getHandle(workflowId('verification', job.id));
  try {
    // The update returns once the decision and the new stage are stored, so a GET right after shows them.
    return await handle.executeUpdate(decisionUpdate, { args: [decision] });
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) {
      throw refuse(await rejectedStage(c, error, job.id));
    }
    throw error;
  }
}

/** `GET …/jobs/{jobId}/events`: the job live over SSE; each read is a fresh EntityManager, never a cached entity. */
export async function streamVerificationJob(c: Context<AppEnv>, jobId: string) {
  const orgId = organizationId(c);
  return streamJob(c, `verification:${jobId}`, async () => {
    const dto = toJobDto(await viewVerificationJob(requestEm(c).fork(), orgId, jobId));
    return { stage: dto.verificationStage, terminal: dto.verificationStage === 'completed' || dto.verificationStage === 'failed', data: dto };
  });
}
