import { ApplicationFailure } from '@temporalio/common';
import { defineUpdate } from '@temporalio/workflow';
import { workflowType } from '../temporal/workflow-type.ts';
import { type Decision, type DecisionResult, decisionRefusal, type VerificationMethod, type VerificationStage } from '../domain/verification.ts';

/** What the route starts a verification workflow with; `resume` is set only by continue-as-new. */
export interface VerificationWorkflowInput {
  jobId: string;
  method: VerificationMethod;
  /** VERIFICATION_DECISION_TIMEOUT in milliseconds: no decision by then means `accept_current`. */
  decisionTimeoutMs: number;
  /** Set by continue-as-new: the run before was asked to finish the deferred addresses (finishDeferredUpdate). */
  resume?: { phase: 'smtp'; nextSeq: number; finishDeferred?: boolean } | { phase: 'api' };
}

/** A verification job's workflow (workflows/verification.ts). */
export const verificationWorkflowType = workflowType<(input: VerificationWorkflowInput) => Promise<void>>()('verificationWorkflow');

/** `catchAllMaxScore` was added later: optional, so histories recorded before it replay unchanged. */
export interface DecisionInput {
  decision: Decision;
  catchAllMaxScore?: number;
}

/**
 * The user's decision on the gaps, as an Update: its validator rejects it (before anything is written
 * to history) in any stage but `awaiting_decision` and once a decision exists, so of two concurrent
 * decisions exactly one is accepted.
 */
export const decisionUpdate = defineUpdate<DecisionResult, [DecisionInput]>('decision');

/**
 * Stop waiting for greylisting servers: the workflow skips what is left of SMTP_GREYLIST_SCHEDULE, so the
 * SMTP stage ends with the deferred addresses Unknown. Its validator rejects it outside the SMTP stage.
 */
export const finishDeferredUpdate = defineUpdate<void, []>('finishDeferred');

/** Failure type of a rejected decision or finish; `details[0]` is the stage the workflow was in. */
export const INVALID_STATE_FAILURE = 'InvalidState';

export const invalidStateFailure = (stage: VerificationStage, message = decisionRefusal(stage)) =>
  ApplicationFailure.create({
    type: INVALID_STATE_FAILURE,
    message,
    details: [stage],
    nonRetryable: true,
  });
