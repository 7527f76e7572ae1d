import { describe, expect, it } from 'vitest';
import { companyRows, scrapeForm, upload, scrapeSuite } from '../support/scrape.ts';

const suite = scrapeSuite();

describe('GET /api/scrape/jobs/{jobId}/events', () => {
  it('streams the job without its items, from its first status to completed, with progress in between', async () => {
    suite.servers.serper.setMode({ kind: 'delay', ms: 20 });
    const rows = companyRows(60, 3, suite.servers.serper, 'sse');
    const job = await upload(suite.agent, scrapeForm(rows.csv, { fileName: 'live.csv' }));
    const cookie = (suite.agent as unknown as { cookies: Map<string, string> }).cookies;
    const res = await suite.h.app.request(`/api/scrape/jobs/${job.id}/events`, {
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
