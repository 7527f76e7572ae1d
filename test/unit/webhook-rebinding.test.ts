import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolve } from '../../src/webhooks/address-guard.ts';
import { sendWebhook } from '../../src/webhooks/send.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

// DNS rebinding: a name that answers a public address to the SSRF check and a private one (here the loopback
// receiver) to the connection's own lookup. The resolver is injected, so no real DNS is involved.
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

const options = { WEBHOOK_ALLOW_INSECURE: true, WEBHOOK_ALLOW_PRIVATE: false, WEBHOOK_TIMEOUT: 2_000 };
const message = (path: string) => ({
  url: `http://rebind.test:${new URL(receiver.url()).port}${path}`,
  secret: `whsec_${randomBytes(32).toString('base64')}`,
  eventId: `evt_${path}`,
  body: '{}',
});

/** Public (TEST-NET-1, where nothing answers) to the first question, the private loopback to every later one. */
function rebinding() {
  const asked: string[] = [];
  const resolve: Resolve = async (host) => {
    asked.push(host);
    return [asked.length === 1 ? '192.0.2.1' : '127.0.0.1'];
  };
  return { asked, resolve };
}

describe('webhook delivery and DNS rebinding (CONTRACT §9.3)', () => {
  it('connects only to the address the guard checked, on every attempt: the private answer is never reached', async () => {
    const { asked, resolve } = rebinding();
    const first = await sendWebhook(message('/rebind'), options, resolve);
    // One resolution per attempt, checked and connected to: the public address, where nothing answers.
    expect(first).toMatchObject({ ok: false, statusCode: null });
    expect(asked).toEqual(['rebind.test']);
    // The next attempt asks again, and its private answer is refused before anything is sent.
    const second = await sendWebhook(message('/rebind'), options, resolve);
    expect(second).toEqual({ ok: false, statusCode: null, error: 'refused before sending: rebind.test resolves to a loopback or private address' });
    expect(asked).toHaveLength(2);
    expect(receiver.to('/rebind')).toHaveLength(0);
  });

  it('delivers to the checked address when the guard allows it', async () => {
    const res = await sendWebhook(message('/allowed'), { ...options, WEBHOOK_ALLOW_PRIVATE: true }, async () => ['127.0.0.1']);
    expect(res).toEqual({ ok: true, statusCode: 200 });
    expect(receiver.to('/allowed')).toHaveLength(1);
  });
});
