import { type Client, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Config } from '../config.ts';
import { workflowType, type WorkflowOf } from './workflow-type.ts';

export interface MaintenanceInput {
  intervalMs: number;
}

/** The task queue's housekeeping workflow (workflows/maintenance.ts). */
export const maintenanceWorkflowType = workflowType<(input: MaintenanceInput) => Promise<void>>()('maintenanceWorkflow');

export const maintenanceWorkflowId = (taskQueue: string) => `maintenance-${taskQueue}`;

/**
 * Starts the one housekeeping workflow of the task queue unless it runs already: every worker calls this at start,
 * the first one starts it, and it survives any restart (its wait is a durable timer).
 */
export async function ensureMaintenance(client: Client, config: Pick<Config, 'TEMPORAL_TASK_QUEUE' | 'CLEANUP_INTERVAL'>): Promise<void> {
  try {
    await client.workflow.start<WorkflowOf<typeof maintenanceWorkflowType>>(maintenanceWorkflowType.name, {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: maintenanceWorkflowId(config.TEMPORAL_TASK_QUEUE),
      args: [{ intervalMs: config.CLEANUP_INTERVAL }],
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
