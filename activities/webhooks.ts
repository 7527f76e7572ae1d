import { Context } from '@temporalio/activity';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { secretBoxFromConfig, SecretDecryptionError } from '../src/crypto/secret-box.ts';
import { newId } from '../src/db/entities/common.ts';
import { addDeliveries, deliveryTarget, disableEndpoint, recordAttempt, recordEvent } from '../src/webhooks/repository-deliveries.ts';
import type { WebhookEvent } from '../src/domain/webhook-events.ts';
import { log } from '../src/log.ts';
import { type DeliveryWorkflow, deliveryWorkflowId, deliveryWorkflowType } from '../src/temporal/webhook-messages.ts';
import { snapshotJob, stateOf } from '../src/webhooks/job-event.ts';
import { webhookSecretContext } from '../src/webhooks/secret.ts';
import { retrySchedule, sendWebhook } from '../src/webhooks/send.ts';
import type { ActivityDeps } from './deps.ts';

export interface JobEventInput {
  type: WebhookEvent;
  jobId: string;
}

export interface AttemptInput {
  deliveryId: string;
  /** The wait before the next attempt should this one fail; null when this is the last. */
  waitMs: number | null;
  /** Asked for by the retry route: sent whatever the delivery's status (a concurrent attempt may have settled it since). */
  manual: boolean;
}

/** Webhook events and deliveries (CONTRACT §9.3). */
export function webhookActivities({ config, orm }: ActivityDeps) {
  const box = secretBoxFromConfig(config);
  return {
    /**
     * Records the job's event once (same id and body however often this runs), one delivery per subscribed
     * endpoint, and starts a delivery workflow per pending delivery (named by it, so never twice).
     */
    async emitJobEvent({ type, jobId }: JobEventInput): Promise<void> {
      const em = orm.em.fork();
      const snapshot = await snapshotJob(em, type, jobId);
      if (!snapshot) return;
      const state = stateOf(type);
      if ((state === 'completed' || state === 'failed') && snapshot.state !== state) {
        log.warn('job event not recorded: the job is not in that state', { type, jobId, state: snapshot.state });
        return;
      }
      const id = newId();
      const createdAt = new Date();
      const body = JSON.stringify({ id, type, createdAt: createdAt.toISOString(), data: { job: snapshot.job } });
      const event = await recordEvent(em, { id, organizationId: snapshot.organizationId, type, jobId, createdAt, body });
      const deliveries = await addDeliveries(em, { id: event.id, organizationId: snapshot.organizationId, type });
      const { client, info } = Context.current();
      for (const deliveryId of deliveries) {
        try {
          await client.workflow.start<DeliveryWorkflow>(deliveryWorkflowType.name, {
            taskQueue: info.taskQueue,
            workflowId: deliveryWorkflowId(deliveryId),
            args: [{ deliveryId, schedule: retrySchedule(config) }],
            // A closed run of this id means the delivery was handled; only the retry route starts it again.
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
          });
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        }
      }
      if (deliveries.length > 0) log.info('webhook event recorded', { eventId: event.id, type, jobId, deliveries: deliveries.length });
    },

    /** One attempt of a pending delivery; `settled` when nothing more is to be tried. */
    async attemptWebhookDelivery({ deliveryId, waitMs, manual }: AttemptInput): Promise<{ settled: boolean }> {
      const em = orm.em.fork();
      const target = await deliveryTarget(em, deliveryId);
      if (!target || (target.status !== 'pending' && !manual)) return { settled: true };
      if (target.endpointDisabled) {
        await recordAttempt(em, deliveryId, { status: 'failed', statusCode: null, error: 'the endpoint is disabled', nextAttemptAt: null, attempted: false });
        return { settled: true };
      }
      let secret: string;
      try {
        secret = box.decrypt(target.secretCiphertext, webhookSecretContext(target.organizationId));
      } catch (error) {
        if (!(error instanceof SecretDecryptionError)) throw error;
        await recordAttempt(em, deliveryId, {
          status: 'failed',
          statusCode: null,
          error: 'the signing secret cannot be read (SECRETS_KEY changed?): create the endpoint again',
          nextAttemptAt: null,
          attempted: false,
        });
        return { settled: true };
      }
      const outcome = await sendWebhook({ url: target.url, secret, eventId: target.eventId, body: target.body }, config);
      if (outcome.ok) {
        await recordAttempt(em, deliveryId, { status: 'succeeded', statusCode: outcome.statusCode, error: null, nextAttemptAt: null, attempted: true });
        log.info('webhook delivered', { deliveryId, eventId: target.eventId, statusCode: outcome.statusCode });
        return { settled: true };
      }
      const gone = outcome.statusCode === 410;
      const last = gone || waitMs === null;
      await recordAttempt(em, deliveryId, {
        status: last ? 'failed' : 'pending',
        statusCode: outcome.statusCode,
        error: outcome.error,
        nextAttemptAt: last ? null : new Date(Date.now() + waitMs),
        attempted: true,
      });
      if (gone) await disableEndpoint(em, target.endpointId);
      log.warn('webhook attempt failed', { deliveryId, eventId: target.eventId, error: outcome.error, final: last, endpointDisabled: gone });
      return { settled: last };
    },
  };
}

export type WebhookActivities = ReturnType<typeof webhookActivities>;
