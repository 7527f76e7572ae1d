import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../support/agent.ts';
import type { Harness } from '../support/harness.ts';
import { type ProviderServers, startProviderServers } from '../support/providers/index.ts';
import { companyRows, scrapeForm, startScrapeHarness, upload } from '../support/scrape.ts';

let servers: ProviderServers;
let h: Harness;
let agent: Agent;
beforeAll(async () => {
  servers = await startProviderServers();
  h = await startScrapeHarness(servers);
  ({ agent } = await h.signup());
});
afterAll(async () => {
  await h.stop();
  await servers.close();
});

describe('GET /api/scrape/jobs/{jobId}/events', () => {
  it('streams the job without its items, from its first status to completed, with progress in between', async () => {
    servers.serper.setMode({ kind: 'delay', ms: 20 });
    const rows = companyRows(60, 3, servers.serper, 'sse');
    const job = await upload(agent, scrapeForm(rows.csv, { fileName: 'live.csv' }));
    const cookie = (agent as unknown as { cookies: Map<string, string> }).cookies;
    const res = await h.app.request(`/api/scrape/jobs/${job.id}/events`, {
      headers: { cookie: [...cookie].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(res.status).toBe(200);
    const messages = (await res.text())
      .split('\n\n')
      .filter((b) => b.trim())
      .map((b) => ({ event: /^event: (.*)$/m.exec(b)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) }));
    expect(messages[0]!.event).toBe('stage');
    const last = messages.at(-1)!;
    expect(last.event).toBe('stage');
    expect(last.data).toMatchObject({ id: job.id, status: 'completed', totalItems: 60, completedItems: 60 });
    expect(last.data).not.toHaveProperty('items');
    // Counts only ever grow along the stream.
    const completed = messages.map((m) => m.data.completedItems as number);
    expect([...completed].sort((a, b) => a - b)).toEqual(completed);
  }, 120_000);
});
