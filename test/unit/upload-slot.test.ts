import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/env.ts';
import { uploadSlot } from '../../src/http/middleware/upload-slot.ts';
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

describe('uploadSlot', () => {
  it('lets two uploads in at once and queues the rest in arrival order', async () => {
    const { app, inside, finish } = uploads();
    const answers = ['a', 'b', 'c', 'd'].map((name) => app.request(`/${name}`, { method: 'POST' }));
    await tick();
    expect([...inside]).toEqual(['a', 'b']);
    finish.get('b')!();
    await tick();
    expect([...inside]).toEqual(['a', 'c']);
    finish.get('a')!();
    await tick();
    expect([...inside]).toEqual(['c', 'd']);
    finish.get('c')!();
    finish.get('d')!();
    expect(await Promise.all(answers.map(async (a) => (await a).text()))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('drops a waiting upload whose client went away, and frees its place for the next', async () => {
    const { app, inside, finish } = uploads();
    const first = ['a', 'b'].map((name) => app.request(`/${name}`, { method: 'POST' }));
    const gone = new AbortController();
    const abandoned = app.request('/c', { method: 'POST', signal: gone.signal });
    const next = app.request('/d', { method: 'POST' });
    await tick();
    gone.abort();
    expect(await (await abandoned).text()).toBe('validation_error');
    finish.get('a')!();
    await tick();
    expect([...inside]).toEqual(['b', 'd']);
    finish.get('b')!();
    finish.get('d')!();
    await Promise.all([...first, next]);
  });
});
