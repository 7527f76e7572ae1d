import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with a request: answer with a status (at once or after a delay), or never (a hung receiver). */
export type Reply = number | 'hang' | { status: number; afterMs: number };

/**
 * A webhook receiver on loopback (node:http): records every request and answers each with the next reply scripted
 * for its path (200 once the script is used up).
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const scripts = new Map<string, Reply[]>();
  const hung: ServerResponse[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const reply = scripts.get(req.url ?? '')?.shift() ?? 200;
      const answer = (status: number) => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
      if (reply === 'hang') hung.push(res);
      else if (typeof reply === 'number') answer(reply);
      else setTimeout(() => answer(reply.status), reply.afterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    received,
    /** Requests to this path, in arrival order. */
    to: (path: string) => received.filter((r) => r.path === path),
    /** Scripts the replies to requests on `path`. */
    reply: (path: string, ...replies: Reply[]) => scripts.set(path, [...(scripts.get(path) ?? []), ...replies]),
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Standard Webhooks verification written from the specification, independent of the `standardwebhooks` package:
 * HMAC-SHA256 keyed with the base64 bytes after `whsec_`, over `<id>.<timestamp>.<body>`, base64, after `v1,`.
 */
export function signatureValid(secret: string, webhook: ReceivedWebhook): boolean {
  const id = webhook.headers['webhook-id'];
  const timestamp = webhook.headers['webhook-timestamp'];
  const signatures = webhook.headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${webhook.body}`).digest();
  return signatures.split(' ').some((candidate) => {
    const [version, value = ''] = candidate.split(',');
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}
