import type { Client } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import { jobSearchAttributes, type JobKind, workflowId } from '../temporal/shared.ts';

export interface JobStart<W extends Workflow> {
  kind: JobKind;
  jobId: string;
  organizationId: string;
  listId?: string | null;
  workflowType: string;
  args: Parameters<W>;
}

/**
 * Starts the workflow of a job that was just stored. A job whose workflow cannot start is taken back
 * (`rollback` deletes it) before the error goes on: without its workflow it would sit pending forever,
 * and a verification job would block its list.
 */
export async function startJobWorkflow<W extends Workflow>(
  temporal: Client,
  taskQueue: string,
  start: JobStart<W>,
  rollback: () => Promise<unknown>,
): Promise<void> {
  try {
    // The caller's type parameter already checked `args` against the workflow's signature.
    await temporal.workflow.start(start.workflowType, {
      taskQueue,
      workflowId: workflowId(start.kind, start.jobId),
      args: start.args as unknown[],
      typedSearchAttributes: jobSearchAttributes(start.kind, start.organizationId, start.listId),
    });
  } catch (error) {
    await rollback();
    throw error;
  }
}
