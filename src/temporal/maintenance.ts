import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Config } from '../config.ts';

export interface MaintenanceInput {
  intervalMs: number;
}

export const maintenanceWorkflowId = (taskQueue: string) => `maintenance-${taskQueue}`;

/**
 * Starts the one housekeeping workflow of the task queue unless it runs already: every worker calls this at start,
 * the first one starts it, and it survives any restart (its wait is a durable timer).
 */
export async function ensureMaintenance(client: Client, config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'CLEANUP_INTERVAL'>): Promise<void> {
  try {
    await client.workflow.start('maintenanceWorkflow', {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: maintenanceWorkflowId(config.TEMPORAL_TASK_QUEUE),
      args: [{ intervalMs: config.CLEANUP_INTERVAL } satisfies MaintenanceInput],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
