import { patched, proxyActivities } from '@temporalio/workflow';
import type { WebhookActivities } from '../activities/webhooks.ts';
import type { WebhookEvent } from '../src/domain/webhook-events.ts';

// Bookkeeping in our own database (and starting delivery workflows): retried until it works.
const webhooks = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * Records a job event for webhooks (CONTRACT §9.3). Job workflows that were already running before events existed
 * replay their histories without it (`patched`), so a deploy does not break them.
 */
export async function emitJobEvent(type: WebhookEvent, jobId: string): Promise<void> {
  if (patched('webhook-job-events')) await webhooks.emitJobEvent({ type, jobId });
}
