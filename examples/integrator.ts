// An integrator's script on the typed client (client/): with only an API key, it registers a webhook endpoint,
// creates a list, adds leads, starts a verification, follows it live, downloads the valid addresses and checks
// the signature of the webhook that announces the end. test/integration/integrator-example.test.ts runs it
// against the sandbox on every CI run. By hand, against `npm run dev` (WEBHOOK_ALLOW_INSECURE and
// WEBHOOK_ALLOW_PRIVATE set, so the service may call this script's receiver on loopback):
//   LEAD_API_URL=http://localhost:3000 LEAD_API_KEY=lk_... node examples/integrator.ts
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { type ApiClient, type components, createApiClient } from '../client/index.ts';

type Job = components['schemas']['VerificationJob'];
/** What the service POSTs when a verification job moves on: the document's `webhooks`, generated with the client. */
export type JobEvent = components['schemas']['VerificationJobEvent'];

export interface IntegratorOptions {
  baseUrl: string;
  apiKey: string;
  /** The addresses to verify; the sandbox's people by default. */
  emails?: string[];
  /** The address the service reaches this script's webhook receiver at: it listens there on a free port. */
  receiverHost?: string;
  log?: (line: string) => void;
}

const SANDBOX_PEOPLE = ['jane.doe@acme.sandbox.test', 'nobody@acme.sandbox.test', 'grace.hopper@mail.sandbox.test'];
const TERMINAL = new Set<Job['verificationStage']>(['completed', 'failed']);

/** Throws on a bad signature, or a timestamp more than 5 minutes off; the raw body, before any parsing. */
export function verifyWebhook(secret: string, rawBody: string, headers: IncomingHttpHeaders): JobEvent {
  const wanted = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
  const signed = Object.fromEntries(wanted.map((name) => [name, String(headers[name] ?? '')]));
  return new Webhook(secret).verify(rawBody, signed) as JobEvent;
}

/** A receiver for the webhooks: answers 204 to a verified event, 400 to anything else, as a real one would. */
async function startReceiver(host: string, secret: () => string) {
  const events: JobEvent[] = [];
  let wake = () => undefined as void;
  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk)).on('end', () => {
      try {
        events.push(verifyWebhook(secret(), raw, req.headers));
        res.writeHead(204).end();
        wake();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/webhooks`,
    /** The first verified event that `matches`, however long the service takes to send it. */
    async next(matches: (event: JobEvent) => boolean): Promise<JobEvent> {
      for (;;) {
        const found = events.find(matches);
        if (found) return found;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What openapi-fetch returns, or the contract's error body as an exception. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.status} ${result.response.url}: ${JSON.stringify(result.error)}`);
  return result.data;
}

/** The job's Server-Sent Events (`stage`, `progress`) until a terminal stage; reconnects if the stream drops. */
async function follow(client: ApiClient, jobId: string, log: (line: string) => void): Promise<Job> {
  for (;;) {
    const { data: stream, response } = await client.GET('/api/external/verification/jobs/{jobId}/events', {
      params: { path: { jobId } },
      parseAs: 'stream',
    });
    if (!stream) throw new Error(`events: ${response.status}`);
    let buffer = '';
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: ?(.*)$/m.exec(message)?.[1];
        const data = message.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.replace(/^data: ?/, '')).join('\n');
        if (!data) continue;
        const job = JSON.parse(data) as Job;
        log(`${event ?? 'message'}: ${job.verificationStage} ${job.processedEmails}/${job.totalEmails}`);
        if (TERMINAL.has(job.verificationStage)) return job;
      }
    }
  }
}

/** Every valid address of the job, page by page (100 a page, the most the route gives). */
async function validAddresses(client: ApiClient, jobId: string): Promise<string[]> {
  const emails: string[] = [];
  for (let page = 1; ; page++) {
    const results = ok(
      await client.GET('/api/external/verification/jobs/{jobId}/results', {
        params: { path: { jobId }, query: { result: 'Valid', page, limit: 100 } },
      }),
    );
    emails.push(...results.data.map((row) => row.email));
    if (page >= results.totalPages) return emails;
  }
}

export async function main({ baseUrl, apiKey, emails = SANDBOX_PEOPLE, receiverHost = '127.0.0.1', log = console.log }: IntegratorOptions) {
  const client = createApiClient({ baseUrl, apiKey });
  let secret = '';
  const receiver = await startReceiver(receiverHost, () => secret);
  try {
    // The endpoint first, so the job below is announced; its secret is in this answer only.
    const endpoint = ok(await client.POST('/api/webhooks', { body: { url: receiver.url, events: ['verification.completed', 'verification.failed'] } }));
    secret = endpoint.secret;
    try {
      const list = ok(await client.POST('/api/external/lists', { body: { name: `Import ${new Date().toISOString()}` } }));
      // An idempotency key per logical request: a retry after a network blip adds nothing twice.
      const added = ok(
        await client.POST('/api/external/lists/{listId}/leads', {
          params: { path: { listId: list.id }, header: { 'Idempotency-Key': `leads-${randomUUID()}` } },
          body: { leads: emails.map((email) => ({ email })) },
        }),
      );
      log(`list ${list.id}: ${added.leads.length} leads added`);
      const started = ok(
        await client.POST('/api/external/verification/jobs', {
          params: { header: { 'Idempotency-Key': `verify-${list.id}` } },
          body: { listId: list.id, verificationMethod: 'smtp_only' },
        }),
      );
      const job = await follow(client, started.id, log);
      const valid = await validAddresses(client, job.id);
      log(`${valid.length} valid: ${valid.join(', ')}`);
      const event = await receiver.next((e) => e.data.job.id === job.id);
      log(`webhook ${event.type} (${event.id}), signature verified`);
      return { listId: list.id, job, valid, event };
    } finally {
      await client.DELETE('/api/webhooks/{id}', { params: { path: { id: endpoint.id } } });
    }
  } finally {
    await receiver.close();
  }
}

if (import.meta.main) {
  const { LEAD_API_URL = 'http://localhost:3000', LEAD_API_KEY } = process.env;
  if (!LEAD_API_KEY) throw new Error('Set LEAD_API_KEY to an API key with lists:write, leads:write, verification:write, verification:read and webhooks:write');
  await main({ baseUrl: LEAD_API_URL, apiKey: LEAD_API_KEY });
}
