/** Webhook endpoints and their delivery log, as an organization manages them (CONTRACT §9.3). */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Config } from '../config.ts';
import { secretBoxFromConfig } from '../crypto/secret-box.ts';
import type { IWebhookEndpoint } from '../db/entities/webhook-endpoint.ts';
import { type DeliveryRow, pageDeliveries, reopenDelivery } from './repository-deliveries.ts';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints } from './repository.ts';
import { invalidState, notFound } from '../errors.ts';
import { type DeliveryWorkflow, deliveryWorkflowId, deliveryWorkflowType, retryDeliverySignal } from '../temporal/webhook-messages.ts';
import { assertDeliverableUrl } from './address-guard.ts';
import { webhookSecretContext } from './secret.ts';
import { retrySchedule } from './send.ts';

export type EndpointRecord = IWebhookEndpoint;
export type DeliveryRecord = DeliveryRow;

export interface NewEndpoint {
  url: string;
  events: string[];
  description?: string | null;
}

/**
 * Registers the endpoint and answers it with its signing secret, which is stored sealed and never shown again.
 * A URL that may not receive deliveries throws `WebhookUrlError`.
 */
export async function registerEndpoint(em: EntityManager, config: Config, organizationId: string, input: NewEndpoint) {
  await assertDeliverableUrl(input.url, { allowInsecure: config.WEBHOOK_ALLOW_INSECURE, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const box = secretBoxFromConfig(config);
  // The id is not known before insert, so the seal is bound to the organization (a copied row cannot be read elsewhere).
  const endpoint = await createEndpoint(em, {
    organizationId,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    secretCiphertext: box.encrypt(secret, webhookSecretContext(organizationId)),
  });
  return { endpoint, secret };
}

export function endpointsOf(em: EntityManager, organizationId: string): Promise<EndpointRecord[]> {
  return listEndpoints(em, organizationId);
}

export async function removeEndpoint(em: EntityManager, organizationId: string, endpointId: string) {
  await deleteEndpoint(em, await getEndpoint(em, organizationId, endpointId));
}

export async function pageEndpointDeliveries(em: EntityManager, organizationId: string, endpointId: string, offset: number, limit: number) {
  const endpoint = await getEndpoint(em, organizationId, endpointId);
  return pageDeliveries(em, endpoint.id, offset, limit);
}

/** Sets the delivery pending and has it attempted at once; refused once the endpoint is disabled. */
export async function retryDelivery(
  em: EntityManager,
  temporal: Client,
  config: Config,
  organizationId: string,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryRecord> {
  const endpoint = await getEndpoint(em, organizationId, endpointId);
  if (endpoint.disabledAt) throw invalidState('The endpoint is disabled (a receiver answered 410)', 'disabled');
  const delivery = await reopenDelivery(em, endpoint.id, deliveryId);
  if (!delivery) throw notFound('Webhook delivery');
  // Signals the running delivery workflow, or starts a new run when the last one has ended.
  await temporal.workflow.signalWithStart<DeliveryWorkflow, []>(deliveryWorkflowType.name, {
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowId: deliveryWorkflowId(delivery.id),
    args: [{ deliveryId: delivery.id, schedule: retrySchedule(config) }],
    signal: retryDeliverySignal,
    signalArgs: [],
  });
  return delivery;
}
