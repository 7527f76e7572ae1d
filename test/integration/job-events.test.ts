import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppDeps, AppEnv } from '../../src/http/env.ts';
import { streamJob } from '../../src/http/job-stream.ts';
import { liveView } from '../../src/jobs/views.ts';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { eventually } from '../support/eventually.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { knownAddress, standardWorld, unknownAddress } from '../support/mail-world/index.ts';
import { listWithEmails, startVerificationWorld, type VerificationWorld } from '../support/verification.ts';

let vw: VerificationWorld;
/** A second API process of the same service: same database, no worker. */
let second: Harness;
beforeAll(async () => {
  // Slow hosts, so that the job passes through its stages while the streams watch.
  vw = await startVerificationWorld(standardWorld({ mailboxesPerDomain: 20, latencyMs: 30 }));
  second = await startHarness({ env: { TEMPORAL_TASK_QUEUE: vw.h.config.TEMPORAL_TASK_QUEUE } });
});
afterAll(async () => {
  await second?.stop();
  await vw?.stop();
});

interface SseMessage {
  event: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the job, asserted field by field
  data: any;
}

/** Reads a whole event stream (it ends after the terminal message) as its messages. */
async function readStream(app: Harness['app'], path: string, headers: Record<string, string>): Promise<{ status: number; type: string | null; messages: SseMessage[] }> {
  const res = await app.request(path, { headers });
  if (res.status !== 200) return { status: res.status, type: res.headers.get('content-type'), messages: [] };
  const text = await res.text();
  const messages = text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? '';
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) };
    });
  return { status: res.status, type: res.headers.get('content-type'), messages };
}

describe('live progress (SSE)', () => {
  it('shows a session client and a key client on another API process every stage of a verification job, up to completed', async () => {
    const { agent } = await vw.h.signup();
    const emails = ['good.test', 'plain.test', 'greylist.test', 'catchall.test'].flatMap((d) => [0, 1, 2].flatMap((k) => [knownAddress(d, k), unknownAddress(d, k)]));
    const listId = await listWithEmails(agent, emails);
    const { key } = await createKey(agent, ['verification:read']);
    const job = await agent.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' });
    expect(job.status).toBe(201);
    const cookie = (agent as unknown as { cookies: Map<string, string> }).cookies;
    const cookieHeader = [...cookie].map(([k, v]) => `${k}=${v}`).join('; ');

    const [bySession, byKey] = await Promise.all([
      readStream(vw.h.app, `/api/verification/jobs/${job.body.id}/events`, { cookie: cookieHeader, origin: 'http://app.test' }),
      readStream(second.app, `/api/external/verification/jobs/${job.body.id}/events`, { 'x-api-key': key }),
    ]);
    for (const stream of [bySession, byKey]) {
      expect(stream.status).toBe(200);
      expect(stream.type).toMatch(/^text\/event-stream/);
      const stages = stream.messages.filter((m) => m.event === 'stage').map((m) => m.data.verificationStage);
      expect(stages[0]).toBe('smtp_verifying');
      expect(stages.at(-1)).toBe('completed');
      expect(stream.messages.at(-1)!.event).toBe('stage');
      expect(stream.messages.at(-1)!.data).toEqual((await agent.get(`/api/verification/jobs/${job.body.id}`)).body);
      // A `stage` message means the stage changed: never the same stage twice in a row.
      expect(stages.filter((stage, i) => i > 0 && stage === stages[i - 1])).toEqual([]);
      expect(stream.messages.every((m) => m.data.id === job.body.id)).toBe(true);
    }
  }, 60_000);

  it("answers another organization's job 404 before any stream starts", async () => {
    const { agent } = await vw.h.signup();
    const listId = await listWithEmails(agent, [knownAddress('good.test', 5)]);
    const job = await agent.post('/api/verification/jobs', { listId, verificationMethod: 'smtp_only' });
    const { agent: stranger } = await vw.h.signup();
    expectError(await stranger.get(`/api/verification/jobs/${job.body.id}/events`), 404, 'not_found');
    const { key } = await createKey(stranger, ['verification:read']);
    expectError(await new Agent(vw.h.app).get(`/api/external/verification/jobs/${job.body.id}/events`, { 'x-api-key': key }), 404, 'not_found');
  });

  it('shows a new stage at once while its progress messages are held to one a second', async () => {
    // A stream over a job whose state the test sets, woken by the same notifications the job tables send.
    const key = `verification:${randomUUID()}`;
    const job = { stage: 'smtp_verifying', processed: 0 };
    const app = new Hono<AppEnv>()
      .use((c, next) => {
        c.set('deps', { config: vw.h.config } as AppDeps);
        return next();
      })
      .get('/events', (c) => streamJob(c, key, async () => liveView(job.stage, { ...job })));
    const res = await app.request('/events');
    const messages: Array<{ event: string; data: typeof job; at: number }> = [];
    const reading = (async () => {
      let text = '';
      for await (const chunk of res.body!) {
        text += new TextDecoder().decode(chunk);
        for (let end = text.indexOf('\n\n'); end >= 0; end = text.indexOf('\n\n')) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)![1]!;
          messages.push({ event, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!), at: Date.now() });
        }
      }
    })();
    const notify = (payload: string) => vw.h.sql(`select pg_notify('job_events', ?)`, [payload]);
    const until = (n: number) => eventually(() => messages.length, (count) => count >= n, { what: `${n} messages`, intervalMs: 5 });
    await until(1);
    // The listener is subscribed once the first read after it is done (the stream reads again at once).
    await sleep(200);
    job.processed = 1;
    await notify(key); // a result written: progress, the first at once
    await until(2);
    expect(messages[1]).toMatchObject({ event: 'progress', data: { processed: 1 } });
    job.processed = 2;
    await notify(key); // within the second: held back
    await sleep(150);
    expect(messages).toHaveLength(2);
    job.stage = 'completed';
    const completedAt = Date.now();
    await notify(`${key}:completed`); // the job row: its new stage
    await reading;
    expect(messages.map((m) => m.event)).toEqual(['stage', 'progress', 'stage']);
    expect(messages[2]!.data).toEqual({ stage: 'completed', processed: 2 });
    // Before, it waited for the progress pace: a second after the last progress message.
    expect(messages[2]!.at - completedAt).toBeLessThan(400);
    expect(messages[2]!.at - messages[1]!.at).toBeLessThan(900);
  });
});
