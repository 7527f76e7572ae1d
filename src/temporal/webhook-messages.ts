import { defineSignal } from '@temporalio/workflow';
import type { RetrySchedule } from '../domain/webhook-retry.ts';
import { workflowType, type WorkflowOf } from './workflow-type.ts';

/** One workflow per delivery, named by it: a re-run of the activity that starts it cannot start a second. */
export const deliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

export interface DeliveryWorkflowInput {
  deliveryId: string;
  schedule: RetrySchedule;
}

/** One delivery's workflow (workflows/webhook-delivery.ts). */
export const deliveryWorkflowType = workflowType<(input: DeliveryWorkflowInput) => Promise<void>>()('webhookDeliveryWorkflow');
export type DeliveryWorkflow = WorkflowOf<typeof deliveryWorkflowType>;

/** Manual retry (`POST /api/webhooks/:id/deliveries/:deliveryId/retry`): attempt now instead of after the wait. */
export const retryDeliverySignal = defineSignal('retryWebhookDelivery');
