import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
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
});
