import { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { kysely } from '../../db/kysely.ts';
import { createRouter, publicRoute } from '../router.ts';
import { Egress } from '../schemas/egress.ts';
const Status = z.object({ status: z.literal('ok') });
const Ready = z.object({
  status: z.enum(['ok', 'unavailable']),
  database: z.enum(['ok', 'down']),
  temporal: z.enum(['ok', 'down']),
  smtp: z.enum(['ok', 'blocked', 'unknown']).openapi({ description: "Outbound SMTP as this process's worker last saw it; `unknown` without a worker here" }),
  dns: z.enum(['ok', 'unreliable', 'unknown']).openapi({ description: "The resolver as this process's worker last saw it (canary domains); never fails readiness" }),
  smtpEgressesBlocked: z.array(z.string()).openapi({ description: 'Egresses (CONTRACT §11) whose outbound SMTP check failed and are out of use; empty when none or without a worker here' }),
  egress: z.array(Egress).openapi({ description: "Each egress's blocklist, identity and quarantines (CONTRACT §13) as this process's worker sees them; empty without a worker here. Never fails readiness" }),
  sandbox: z.array(z.string()).optional().openapi({ description: 'What the development sandbox stands in for (npm run dev without keys); absent otherwise' }),
});

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
      const { orm, temporal, config } = c.var.deps;
      const sandbox = config.SANDBOX.length > 0 ? { sandbox: config.SANDBOX } : {};
      const environment = c.var.deps.smtpEnvironment;
      // A stale state is checked again in the background; the answer reports the last one seen.
      environment?.current().catch(() => undefined);
      const { smtp, dns, blockedEgresses: smtpEgressesBlocked } = environment?.last ?? {
        smtp: 'unknown' as const,
        dns: 'unknown' as const,
        blockedEgresses: [],
      };
      const egress = c.var.deps.smtpEgress?.egressReport() ?? [];
      const signal = AbortSignal.timeout(READY_DEADLINE_MS);
      const [db, tmp] = await Promise.allSettled([
        withinDeadline(signal, kysely(orm.em.fork()).selectNoFrom(sql.lit(1).as('one')).execute()),
        withinDeadline(
          signal,
          temporal.connection.withAbortSignal(signal, () => temporal.workflowService.getSystemInfo({})),
        ),
      ]);
      const database = db.status === 'fulfilled' ? ('ok' as const) : ('down' as const);
      const temporalState = tmp.status === 'fulfilled' ? ('ok' as const) : ('down' as const);
      if (database === 'ok' && temporalState === 'ok') return c.json({ status: 'ok' as const, database, temporal: temporalState, smtp, dns, smtpEgressesBlocked, egress, ...sandbox }, 200);
      return c.json({ status: 'unavailable' as const, database, temporal: temporalState, smtp, dns, smtpEgressesBlocked, egress, ...sandbox }, 503);
    },
  );

const READY_DEADLINE_MS = 3000;

/** Settles by the deadline whatever the check does: a connection attempt may not honour the abort by itself. */
function withinDeadline<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    work.then(resolve, reject);
  });
}
