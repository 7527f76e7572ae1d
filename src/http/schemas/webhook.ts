import { z } from '@hono/zod-openapi';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';
import type { DeliveryRecord, EndpointRecord } from '../../webhooks/endpoints.ts';
import { iso } from '../../domain/time.ts';
import { Timestamp } from '../../domain/time.ts';

export const WebhookEndpointInputSchema = z
  .object({
    url: z.string().trim().min(1).max(2048).openapi({ example: 'https://crm.example.com/hooks/leads' }),
    events: z
      .array(z.enum([...WEBHOOK_EVENTS, '*']))
      .min(1)
      .max(WEBHOOK_EVENTS.length + 1)
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

export function toEndpointDto(e: EndpointRecord) {
  return { id: e.id, url: e.url, events: [...e.events], description: e.description ?? null, createdAt: iso(e.createdAt)!, disabledAt: iso(e.disabledAt) };
}

export const WebhookDeliverySchema = z
  .object({
    id: z.uuid(),
    eventId: z.uuid().openapi({ description: 'The event id: `webhook-id` of every attempt' }),
    type: z.enum(WEBHOOK_EVENTS),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable().openapi({ description: "The receiver's status of the last attempt; null when none came" }),
    lastError: z.string().nullable().openapi({ description: 'Why the last attempt failed (HTTP status, timeout, refused address)' }),
    nextAttemptAt: Timestamp.nullable().openapi({ description: 'When the next automatic attempt is due; null when none is scheduled' }),
    createdAt: Timestamp,
  })
  .openapi('WebhookDelivery');

export const toDeliveryDto = (d: DeliveryRecord): z.infer<typeof WebhookDeliverySchema> => ({
  id: d.id,
  eventId: d.eventId,
  type: d.type,
  status: d.status,
  attempts: d.attempts,
  lastStatusCode: d.lastStatusCode,
  lastError: d.lastError,
  nextAttemptAt: iso(d.nextAttemptAt),
  createdAt: iso(d.createdAt)!,
});
