import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { DELIVERY_STATUSES } from '../../domain/webhook-events.ts';
import { createdAtProperty, idProperty } from './common.ts';
import { WebhookEndpoint } from './webhook-endpoint.ts';
import { WebhookEvent } from './webhook-event.ts';

/** One event on its way to one endpoint (CONTRACT §9.3): the delivery log's row, updated after every attempt. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  uniques: [{ properties: ['endpoint', 'event'] }],
  indexes: [{ properties: ['endpoint', 'id'] }],
  properties: {
    id: idProperty(),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    event: () => p.manyToOne(WebhookEvent).deleteRule('cascade'),
    status: p.enum(DELIVERY_STATUSES),
    attempts: p.integer(),
    lastStatusCode: p.integer().nullable(),
    lastError: p.text().nullable(),
    /** When the next automatic attempt is due; null once nothing more is scheduled. */
    nextAttemptAt: p.datetime().nullable(),
    createdAt: createdAtProperty(),
  },
});
export type IWebhookDelivery = InferEntity<typeof WebhookDelivery>;
