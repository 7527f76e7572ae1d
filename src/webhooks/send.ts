/**
 * One delivery attempt (CONTRACT §9.3): the URL is checked again (what it resolves to may have changed since the
 * endpoint was registered) by the connection's own lookup, the body signed per Standard Webhooks, and any 2xx
 * within the timeout is success.
 */
import { Webhook } from 'standardwebhooks';
import { Agent, fetch } from 'undici';
import type { Config } from '../config.ts';
import type { RetrySchedule } from '../domain/webhook-retry.ts';
import { checkedLookup, parseDeliverableUrl, type Resolve, WebhookUrlError } from './address-guard.ts';

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

const refused = (error: WebhookUrlError): AttemptOutcome => ({ ok: false, statusCode: null, error: `refused before sending: ${error.message}` });

/** `resolve`: the system resolver unless given. */
export async function sendWebhook(message: SignedMessage, options: SendOptions, resolve?: Resolve): Promise<AttemptOutcome> {
  const guard = { allowInsecure: options.WEBHOOK_ALLOW_INSECURE, allowPrivate: options.WEBHOOK_ALLOW_PRIVATE, ...(resolve ? { resolve } : {}) };
  let url: URL;
  try {
    url = parseDeliverableUrl(message.url, guard);
  } catch (error) {
    if (error instanceof WebhookUrlError) return refused(error);
    throw error;
  }
  const sentAt = new Date();
  const signature = new Webhook(message.secret).sign(message.eventId, sentAt, message.body);
  // A connection of this attempt's own, opened to the address its lookup checked; never one kept from an earlier attempt.
  const dispatcher = new Agent({ connect: { lookup: checkedLookup(guard) } });
  try {
    return await post(url, message, sentAt, signature, options, dispatcher);
  } finally {
    await dispatcher.destroy().catch(() => undefined);
  }
}

async function post(url: URL, message: SignedMessage, sentAt: Date, signature: string, options: SendOptions, dispatcher: Agent): Promise<AttemptOutcome> {
  let response: Awaited<ReturnType<typeof fetch>>;
  try {
    response = await fetch(url, {
      dispatcher,
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
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null;
    if (cause instanceof WebhookUrlError) return refused(cause);
    return { ok: false, statusCode: null, error: `could not connect: ${cause?.message ?? String(error)}` };
  }
  // Only the status matters; the receiver's body is not read.
  await response.body?.cancel().catch(() => undefined);
  if (response.status >= 200 && response.status < 300) return { ok: true, statusCode: response.status };
  return { ok: false, statusCode: response.status, error: `answered HTTP ${response.status}` };
}
