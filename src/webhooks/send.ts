/**
 * One delivery attempt (CONTRACT §9.3): the URL is checked again (what it resolves to may have changed since the
 * endpoint was registered), the body signed per Standard Webhooks, and any 2xx within the timeout is success.
 */
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config.ts';
import type { RetrySchedule } from '../domain/webhook-retry.ts';
import { assertDeliverableUrl, WebhookUrlError } from './address-guard.ts';

export interface SignedMessage {
  url: string;
  /** `whsec_…` as shown at creation. */
  secret: string;
  /** The event id: `webhook-id` on every attempt, so the receiver can drop repeats. */
  eventId: string;
  body: string;
}

export type AttemptOutcome =
  | { ok: true; statusCode: number }
  /** `statusCode` null when no answer came (refused address, network error, timeout). */
  | { ok: false; statusCode: number | null; error: string };

export type SendOptions = Pick<Config, 'WEBHOOK_ALLOW_INSECURE' | 'WEBHOOK_ALLOW_PRIVATE' | 'WEBHOOK_TIMEOUT'>;

export function retrySchedule(config: Pick<Config, 'WEBHOOK_RETRY_FIRST' | 'WEBHOOK_RETRY_MAX' | 'WEBHOOK_RETRY_FOR'>): RetrySchedule {
  return { firstMs: config.WEBHOOK_RETRY_FIRST, maxMs: config.WEBHOOK_RETRY_MAX, forMs: config.WEBHOOK_RETRY_FOR };
}

export async function sendWebhook(message: SignedMessage, options: SendOptions): Promise<AttemptOutcome> {
  let url: URL;
  try {
    url = await assertDeliverableUrl(message.url, { allowInsecure: options.WEBHOOK_ALLOW_INSECURE, allowPrivate: options.WEBHOOK_ALLOW_PRIVATE });
  } catch (error) {
    if (error instanceof WebhookUrlError) return { ok: false, statusCode: null, error: `refused before sending: ${error.message}` };
    throw error;
  }
  const sentAt = new Date();
  const signature = new Webhook(message.secret).sign(message.eventId, sentAt, message.body);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'lead-enrichment-webhooks/1',
        'webhook-id': message.eventId,
        'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
        'webhook-signature': signature,
      },
      body: message.body,
      // A redirect is not a 2xx, and following one could lead past the address check.
      redirect: 'manual',
      signal: AbortSignal.timeout(options.WEBHOOK_TIMEOUT),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') {
      return { ok: false, statusCode: null, error: `no answer within ${options.WEBHOOK_TIMEOUT} ms` };
    }
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return { ok: false, statusCode: null, error: `could not connect: ${cause}` };
  }
  // Only the status matters; the receiver's body is not read.
  await response.body?.cancel().catch(() => undefined);
  if (response.status >= 200 && response.status < 300) return { ok: true, statusCode: response.status };
  return { ok: false, statusCode: response.status, error: `answered HTTP ${response.status}` };
}
