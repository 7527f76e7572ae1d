import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../support/auth-cases.ts';
import { startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { startHarness, type Harness } from '../support/harness.ts';

let world: EnrichmentWorld;
let h: Harness;
let second: Harness;
beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 83 });
  h = await startHarness({ env: world.env, worker: true, deps: withFastProviders });
  // Another API process (no worker) streams the same job: notifications travel through PostgreSQL.
  second = await startHarness({ env: { ...world.env, TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE } });
});
afterAll(async () => {
  await second?.stop();
  await h?.stop();
  await world?.stop();
});

describe('GET /api/external/enrichment/bulk/{jobId}/events', () => {
  it('streams a bulk enrichment from its first status to completed, from another API process', async () => {
    const { agent } = await h.signup({ credits: 100 });
    const list = await agent.post('/api/lists', { name: 'To enrich' });
    const leads = Array.from({ length: 6 }, () => ({ networkUrl: world.profile('live') }));
    expect((await agent.post(`/api/lists/${list.body.id}/leads`, { leads })).status).toBe(201);
    const { key } = await createKey(agent, ['enrichment:write']);
    const job = await agent.post('/api/enrichment/bulk', { listId: list.body.id });
    expect(job.status).toBe(201);

    const res = await second.app.request(`/api/external/enrichment/bulk/${job.body.jobId}/events`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const messages = (await res.text())
      .split('\n\n')
      .filter((b) => b.trim())
      .map((b) => ({ event: /^event: (.*)$/m.exec(b)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) }));
    expect(messages[0]!.event).toBe('stage');
    expect(['pending', 'processing', 'completed']).toContain(messages[0]!.data.status);
    expect(messages.at(-1)).toEqual({ event: 'stage', data: (await agent.get(`/api/enrichment/bulk/${job.body.jobId}`)).body });
    expect(messages.at(-1)!.data.status).toBe('completed');
    const statuses = messages.filter((m) => m.event === 'stage').map((m) => m.data.status);
    expect(statuses.filter((s, i) => i > 0 && s === statuses[i - 1])).toEqual([]);
  }, 60_000);
});
