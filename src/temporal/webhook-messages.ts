import { defineSignal } from '@temporalio/workflow';
import type { RetrySchedule } from '../domain/webhook-retry.ts';

/** One workflow per delivery, named by it: a re-run of the activity that starts it cannot start a second. */
export const deliveryWorkflowId = (deliveryId: string) => `webhook-delivery-${deliveryId}`;

export interface DeliveryWorkflowInput {
  deliveryId: string;
  schedule: RetrySchedule;
}

/** Manual retry (`POST /api/webhooks/:id/deliveries/:deliveryId/retry`): attempt now instead of after the wait. */
export const retryDeliverySignal = defineSignal('retryWebhookDelivery');
