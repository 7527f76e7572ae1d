import { condition, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.ts';
import { waitAfter } from '../src/domain/webhook-retry.ts';
import { type DeliveryWorkflowInput, retryDeliverySignal } from '../src/temporal/webhook-messages.ts';

// An attempt is one HTTP request of at most WEBHOOK_TIMEOUT (≤ 10 s); a failing database is retried until it answers.
const { attemptWebhookDelivery } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * One webhook delivery (CONTRACT §9.3): attempt, then a durable timer with the backoff, until an attempt settles
 * it (a 2xx, a 410, or the last attempt once the schedule has run its course). The retry signal cuts a wait short.
 */
export async function webhookDeliveryWorkflow({ deliveryId, schedule }: DeliveryWorkflowInput): Promise<void> {
  let retryNow = false;
  setHandler(retryDeliverySignal, () => {
    retryNow = true;
  });
  const startedAt = workflowInfo().startTime.getTime();
  for (let attempt = 1; ; attempt++) {
    const manual = retryNow;
    retryNow = false;
    const waitMs = waitAfter(schedule, attempt, Date.now() - startedAt);
    const { settled } = await attemptWebhookDelivery({ deliveryId, waitMs, manual });
    // A manual retry that came during this attempt is honoured whatever the attempt recorded.
    if (retryNow) continue;
    if (settled || waitMs === null) return;
    await condition(() => retryNow, waitMs);
  }
}
