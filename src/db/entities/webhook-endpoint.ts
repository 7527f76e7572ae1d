import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';

/** Where an organization wants job events sent (CONTRACT §9.3). The signing secret is stored sealed (SecretBox). */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  indexes: [{ properties: ['organization', 'id'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    url: p.text(),
    events: p.array(),
    description: p.text().nullable(),
    secretCiphertext: p.text(),
    createdAt: createdAtProperty(),
    /** Set when a receiver answered 410: nothing more is sent there. */
    disabledAt: p.datetime().nullable(),
  },
});
export type IWebhookEndpoint = InferEntity<typeof WebhookEndpoint>;
