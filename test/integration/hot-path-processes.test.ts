import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../support/agent.ts';
import { type ApiProcess, startApiProcess } from '../support/api-processes.ts';
import { createKey } from '../support/auth-cases.ts';
import { eventually } from '../support/eventually.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// Only a change notification (or a reconnect) can make a process drop a key it has seen: the TTL outlasts the run.
// Budget: 100 at once and 1 a minute, reserved 10 at a time (a tenth of the burst, under RATE_LIMIT_BATCH).
const env = { API_KEY_CACHE_TTL: '10m', RATE_LIMIT_BURST: '100', RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BATCH: '20' };
const BATCH = 10;
// The TTL being 10 minutes, a 401 within this is the push (or the reconnect) and nothing else; generous, since a
// loaded machine may take seconds to deliver it (a 1 s wait failed under load).
const PUSHED = { what: 'the key refused', timeoutMs: 30_000, intervalMs: 10 };
let h: Harness;
let session: Agent;
let processes: ApiProcess[];
beforeAll(async () => {
  [h, ...processes] = await Promise.all([startHarness(), startApiProcess(env), startApiProcess(env)]);
  ({ agent: session } = await h.signup());
}, 60_000);
afterAll(() => Promise.all([h.stop(), ...processes.map((p) => p.stop())]));

const statusVia = async (p: ApiProcess, key: string) => (await p.get('/api/external/lists', { 'x-api-key': key })).status;

describe('API keys across API processes', () => {
  it('a key revoked through one instance is refused by every other process, pushed by NOTIFY', async () => {
    const { id, key } = await createKey(session, ['lists:read']);
    for (const p of processes) expect(await statusVia(p, key)).toBe(200);
    expect((await session.delete(`/api/api-keys/${id}`)).status).toBe(204);
    for (const p of processes) await eventually(() => statusVia(p, key), (status) => status === 401, PUSHED);
  });

  it('a process whose listener reconnects forgets every key, since notifications may have been missed', async () => {
    const { id, key } = await createKey(session, ['lists:read']);
    const [first] = processes;
    expect(await statusVia(first!, key)).toBe(200);
    // Revoke without the trigger (replica mode skips it): no notification is ever sent.
    await h.sql(`begin; set local session_replication_role = replica; update api_key set revoked_at = now() where id = '${id}'; commit;`);
    expect(await statusVia(first!, key)).toBe(200); // still trusted from memory
    await h.sql(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ?`, [`listen:api_key_changed:${first!.pid}`]);
    await eventually(() => statusVia(first!, key), (status) => status === 401, PUSHED);
  });
});

describe('rate limits across API processes', () => {
  it('two processes together grant the burst within one batch per process', async () => {
    const { key } = await createKey(session, ['lists:read']);
    const statuses: number[] = [];
    // 10 concurrent callers per process, 150 requests each: far more than the budget.
    await Promise.all(
      processes.flatMap((p) =>
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < 15; i++) statuses.push(await statusVia(p, key));
        }),
      ),
    );
    const granted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // Every granted token was reserved from the shared bucket; tokens a process still holds are the undershoot.
    expect(granted).toBeLessThanOrEqual(100 + 2 * BATCH);
    expect(granted).toBeGreaterThanOrEqual(100 - 2 * (BATCH - 1));
  });
});
