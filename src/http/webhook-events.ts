import { type OpenAPIHono, z } from '@hono/zod-openapi';
import { WEBHOOK_EVENTS } from '../domain/webhook-events.ts';
import type { AppEnv } from './env.ts';
import { BulkJobSchema } from '../enrichment/views.ts';
import { ScrapeJobSchema } from '../scrape/views.ts';
import { VerificationJobSchema } from '../verification/views.ts';

/** Each job kind's events carry the job as its GET route shows it (src/webhooks/job-event.ts). */
const KINDS = [
  ['verification', 'VerificationJobEvent', VerificationJobSchema],
  ['scrape', 'ScrapeJobEvent', ScrapeJobSchema],
  ['enrichment', 'EnrichmentJobEvent', BulkJobSchema],
] as const;

const SignatureHeaders = z.object({
  'webhook-id': z.string().openapi({ description: 'The event id, the same on every retry: drop repeats by it' }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix seconds' }),
  'webhook-signature': z.string().openapi({
    description: '`v1,` + base64(HMAC-SHA256(the base64-decoded secret after `whsec_`, `"<webhook-id>.<webhook-timestamp>.<raw body>"`)): Standard Webhooks',
  }),
});

/**
 * The events the service POSTs to registered endpoints, as OpenAPI 3.1 `webhooks`: a receiver's types are
 * generated with the client's (client/schema.d.ts `webhooks`), not copied from the README.
 */
export function registerWebhookEvents(app: OpenAPIHono<AppEnv>) {
  for (const [kind, name, job] of KINDS) {
    const types = WEBHOOK_EVENTS.filter((type) => type.startsWith(`${kind}.`));
    const Event = z
      .object({
        id: z.uuid().openapi({ description: 'The event id (also `webhook-id`)' }),
        type: z.enum(types as [string, ...string[]]),
        createdAt: z.iso.datetime(),
        data: z.object({ job }),
      })
      .openapi(name);
    app.openAPIRegistry.registerWebhook({
      method: 'post',
      path: kind,
      tags: ['webhook-events'],
      summary: `A ${kind} job reached ${types.map((type) => `\`${type.slice(kind.length + 1)}\``).join(', ')}`,
      description: 'Sent to every endpoint subscribed to the event (POST /api/webhooks). Verify the signature over the raw body before parsing it.',
      security: [],
      request: { headers: SignatureHeaders, body: { required: true, content: { 'application/json': { schema: Event } } } },
      responses: {
        204: { description: 'Received: any 2xx within 10 s ends the delivery' },
        400: { description: 'Refused (a bad signature): like any answer other than 2xx, retried for 24 h' },
      },
    });
  }
}
