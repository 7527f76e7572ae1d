/**
 * The floor of any route in `npm run bench -- api`: the page queries and their JSON behind a bare Hono handler,
 * nothing else (no key, rate limit, validation, metrics or logging), on a plain `pg` pool as the app has its own.
 * Run as a process of its own (IPC: sends `{ port }` when listening, answers `cpu` as api-process.ts does; env
 * DATABASE_URL, BENCH_ORG_ID, BENCH_PHONE, BENCH_CONNECTIONS) or mounted in the bench's own process (`floorApp`).
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import pg from 'pg';
import { pageLeadRows, pageListRows } from '../../src/lists/repository-pages.ts';
import { paginated } from '../../src/http/schemas/common.ts';

const FIRST_PAGE = { page: 1, limit: 20 };

export function floorApp(pool: pg.Pool, organizationId: string, phone: string) {
  return new Hono()
    .get('/api/external/lists', async (c) => {
      const { rows, total } = await pageListRows(pool, organizationId, 0, 20);
      return c.json(paginated(rows, total, FIRST_PAGE));
    })
    .get('/api/external/leads', async (c) => {
      const { rows, total } = await pageLeadRows(pool, organizationId, { phone }, 0, 20);
      return c.json(paginated(rows, total, FIRST_PAGE));
    });
}

if (process.send && process.argv[1] === import.meta.filename) {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.BENCH_CONNECTIONS) });
  const app = floorApp(pool, process.env.BENCH_ORG_ID!, process.env.BENCH_PHONE!);
  serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.send!({ port: info.port }));
  process.on('message', (message) => {
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send!({ cpuMicros: user + system });
    }
    if (message === 'stop') void pool.end().then(() => process.exit(0));
  });
}
