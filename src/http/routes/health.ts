import { z } from '@hono/zod-openapi';
import { createRouter, publicRoute } from '../router.ts';

const Status = z.object({ status: z.literal('ok') });
const Ready = z.object({ status: z.enum(['ok', 'unavailable']), database: z.enum(['ok', 'down']), temporal: z.enum(['ok', 'down']) });

export const healthRoutes = createRouter()
  .openapi(
    publicRoute({
      method: 'get',
      path: '/healthz',
      tags: ['health'],
      summary: 'The process is up',
      responses: { 200: { description: 'Up', content: { 'application/json': { schema: Status } } } },
    }),
    (c) => c.json({ status: 'ok' as const }, 200),
  )
  .openapi(
    publicRoute({
      method: 'get',
      path: '/readyz',
      tags: ['health'],
      summary: 'PostgreSQL and Temporal are reachable',
      responses: {
        200: { description: 'Ready', content: { 'application/json': { schema: Ready } } },
        503: { description: 'Not ready', content: { 'application/json': { schema: Ready } } },
      },
    }),
    async (c) => {
      const { orm, temporal } = c.var.deps;
      const timeout = AbortSignal.timeout(3000);
      const [db, tmp] = await Promise.allSettled([
        orm.em.getConnection().execute('select 1'),
        temporal.connection.withAbortSignal(timeout, () => temporal.workflowService.getSystemInfo({})),
      ]);
      const database = db.status === 'fulfilled' ? ('ok' as const) : ('down' as const);
      const temporalState = tmp.status === 'fulfilled' ? ('ok' as const) : ('down' as const);
      if (database === 'ok' && temporalState === 'ok') return c.json({ status: 'ok' as const, database, temporal: temporalState }, 200);
      return c.json({ status: 'unavailable' as const, database, temporal: temporalState }, 503);
    },
  );
