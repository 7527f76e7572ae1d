import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';

/**
 * One job event (CONTRACT §9.3), recorded once per job and type (a re-run activity finds the row it wrote).
 * `body` is the JSON sent to every endpoint, fixed when the event happened: every retry sends the same bytes.
 */
export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  uniques: [{ properties: ['jobId', 'type'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    type: p.enum(WEBHOOK_EVENTS),
    jobId: p.uuid(),
    body: p.text(),
    createdAt: createdAtProperty(),
  },
});
export type IWebhookEvent = InferEntity<typeof WebhookEvent>;
