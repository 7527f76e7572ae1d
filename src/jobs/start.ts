import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { Duration, Workflow } from '@temporalio/common';
import type { Config } from '../config.ts';
import { jobSearchAttributes, type JobKind, workflowId } from '../temporal/shared.ts';
import type { WorkflowType } from '../temporal/workflow-type.ts';

export interface WorkflowStart<W extends Workflow> {
  kind: JobKind;
  /** The job's id, or a single request's own id: the workflow id is `<kind>-<id>` either way. */
  id: string;
  organizationId: string;
  listId?: string | null;
  /** The kind's declaration (src/<kind>/messages.ts): its registered name, and the signature `args` must fit. */
  workflow: WorkflowType<W>;
  args: Parameters<W>;
  /** For a single request a caller waits on: Temporal ends the workflow after this long. */
  executionTimeout?: Duration;
}

/**
 * The one way every job kind (and each single request) starts its workflow: one id convention, the search
 * attributes operators filter by, one task queue. A job whose workflow cannot start is taken back before the error
 * goes on: without its workflow it would sit pending forever. A job already committed passes `rollback` (it deletes
 * the job); a verification job's workflow starts inside the job's creating transaction, which the error rolls back
 * (its first range is written meanwhile, src/verification/repository.ts), so it passes none.
 */
export async function startWorkflow<W extends Workflow>(
  deps: { temporal: Client; config: Pick<Config, 'TEMPORAL_TASK_QUEUE'> },
  start: WorkflowStart<W>,
  rollback?: () => Promise<unknown>,
): Promise<WorkflowHandleWithFirstExecutionRunId<W>> {
  try {
    // `args` were checked against the declaration's signature.
    return await deps.temporal.workflow.start<W>(start.workflow.name, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: workflowId(start.kind, start.id),
      args: start.args as never,
      typedSearchAttributes: jobSearchAttributes(start.kind, start.organizationId, start.listId),
      ...(start.executionTimeout ? { workflowExecutionTimeout: start.executionTimeout } : {}),
    });
  } catch (error) {
    await rollback?.();
    throw error;
  }
}
