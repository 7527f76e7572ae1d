import { z } from '@hono/zod-openapi';
import type { IWebhookEndpoint } from '../../db/entities/webhook-endpoint.ts';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';
import { iso, Timestamp } from './common.ts';

export const WebhookEndpointInputSchema = z
  .object({
    url: z.string().trim().min(1).max(2048).openapi({ example: 'https://crm.example.com/hooks/leads' }),
    events: z
      .array(z.enum([...WEBHOOK_EVENTS, '*']))
      .min(1)
      .transform((events) => [...new Set(events)])
      .openapi({ example: ['verification.completed', 'enrichment.completed'] }),
    description: z.string().trim().max(500).nullish(),
  })
  .strict()
  .openapi('WebhookEndpointInput');

export const WebhookEndpointSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    createdAt: Timestamp,
    disabledAt: Timestamp.nullable(),
  })
  .openapi('WebhookEndpoint');

export const WebhookEndpointCreatedSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({ description: '`whsec_` + base64 of 32 random bytes; shown only here, once' }),
}).openapi('WebhookEndpointCreated');

export function toEndpointDto(e: IWebhookEndpoint) {
  return { id: e.id, url: e.url, events: [...e.events], description: e.description ?? null, createdAt: iso(e.createdAt)!, disabledAt: iso(e.disabledAt) };
}
