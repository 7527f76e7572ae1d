import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/env.ts';
import { PARSING_AT_ONCE, parsingTurn, RECEIVING_AT_ONCE, uploadSlot } from '../../src/http/middleware/upload-slot.ts';
import { toApiError } from '../../src/http/error-handler.ts';

/** An app whose upload handler runs until the test lets it finish, recording who is inside. */
function uploads() {
  const inside = new Set<string>();
  const finish = new Map<string, () => void>();
  const app = new Hono<AppEnv>().post('/:name', uploadSlot, async (c) => {
    const name = c.req.param('name');
    inside.add(name);
    await new Promise<void>((resolve) => finish.set(name, resolve));
    inside.delete(name);
    return c.text(name);
  });
  app.onError((err, c) => c.text(toApiError(err).code, 400));
  return { app, inside, finish };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
const names = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `u${from + i}`);

describe('uploadSlot', () => {
  it(`lets ${RECEIVING_AT_ONCE} uploads in at once and queues the rest in arrival order`, async () => {
    const { app, inside, finish } = uploads();
    const all = names(RECEIVING_AT_ONCE + 2);
    const answers = all.map((name) => app.request(`/${name}`, { method: 'POST' }));
    await tick();
    expect([...inside]).toEqual(all.slice(0, RECEIVING_AT_ONCE));
    finish.get('u1')!();
    await tick();
    expect(inside.has(all[RECEIVING_AT_ONCE]!)).toBe(true);
    expect(inside.has(all[RECEIVING_AT_ONCE + 1]!)).toBe(false);
    finish.get('u0')!();
    await tick();
    expect(inside.has(all[RECEIVING_AT_ONCE + 1]!)).toBe(true);
    for (const name of all) finish.get(name)?.();
    await tick();
    for (const name of all) finish.get(name)?.();
    expect(await Promise.all(answers.map(async (a) => (await a).text()))).toEqual(all);
  });

  it('drops a waiting upload whose client went away, and frees its place for the next', async () => {
    const { app, inside, finish } = uploads();
    const first = names(RECEIVING_AT_ONCE).map((name) => app.request(`/${name}`, { method: 'POST' }));
    const gone = new AbortController();
    const abandoned = app.request('/gone', { method: 'POST', signal: gone.signal });
    const next = app.request('/next', { method: 'POST' });
    await tick();
    gone.abort();
    expect(await (await abandoned).text()).toBe('validation_error');
    finish.get('u0')!();
    await tick();
    expect(inside.has('next')).toBe(true);
    expect(inside.has('gone')).toBe(false);
    for (const name of [...names(RECEIVING_AT_ONCE), 'next']) finish.get(name)!();
    await Promise.all([...first, next]);
  });
});

describe('parsingTurn', () => {
  it(`gives ${PARSING_AT_ONCE} turns at once, the next in arrival order, and drops a waiter whose client went away`, async () => {
    const never = new AbortController().signal;
    const held = await Promise.all(Array.from({ length: PARSING_AT_ONCE }, () => parsingTurn(never)));
    const order: string[] = [];
    const gone = new AbortController();
    const abandoned = parsingTurn(gone.signal);
    const waiting = ['a', 'b'].map((name) => parsingTurn(never).then((release) => (order.push(name), release)));
    await tick();
    expect(order).toEqual([]);
    gone.abort();
    await expect(abandoned).rejects.toMatchObject({ code: 'validation_error' });
    held[0]!();
    await tick();
    expect(order).toEqual(['a']);
    held[1]!();
    for (const release of await Promise.all(waiting)) release();
    expect(order).toEqual(['a', 'b']);
  });
});
