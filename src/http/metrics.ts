import type { MiddlewareHandler } from 'hono';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { Gauge, Histogram, Registry } from 'prom-client';
import { kysely } from '../db/kysely.ts';
import { metricsRegistry } from '../metrics.ts';
import type { AppDeps, AppEnv } from './env.ts';

/** Jobs counted by kind and stage, in one statement. */
function jobsByStage(em: EntityManager) {
  const db = kysely(em);
  const n = sql<number>`count(*)::int`.as('n');
  return db
    .selectFrom('verification_job')
    .select([sql<string>`'verification'`.as('kind'), sql<string>`verification_stage`.as('stage'), n])
    .groupBy('verificationStage')
    .unionAll(db.selectFrom('scrape_job').select([sql<string>`'scrape'`.as('kind'), sql<string>`status`.as('stage'), n]).groupBy('status'))
    .unionAll(db.selectFrom('enrichment_job').select([sql<string>`'enrichment'`.as('kind'), sql<string>`status`.as('stage'), n]).groupBy('status'))
    .execute();
}

/**
 * This app's HTTP and job metrics, served with the process's counters (src/metrics.ts) and, when the worker runs
 * in this process, the Temporal worker's own metrics (scraped from its exporter and appended).
 */
export function createAppMetrics(deps: AppDeps) {
  const registry = new Registry();
  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by route, method and status; _count is the request count',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  new Gauge({
    name: 'jobs',
    help: 'Jobs by kind and stage (verification stage, scrape or enrichment status)',
    labelNames: ['kind', 'stage'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await jobsByStage(deps.orm.em.fork());
      for (const row of rows) this.set({ kind: row.kind, stage: row.stage }, row.n);
    },
  });

  new Gauge({
    name: 'smtp_egress_state',
    help: "Each egress's health (CONTRACT §13): 1 for its current state (ok, degraded, listed, blocked), 0 for the others",
    labelNames: ['egress', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const egress of deps.smtpEgress?.egressReport() ?? [])
        for (const state of ['ok', 'degraded', 'listed', 'blocked'] as const) this.set({ egress: egress.id, state }, egress.state === state ? 1 : 0);
    },
  });

  // One child per series, found by a plain string key: prom-client's labels() builds a labels object and a
  // closure on every call (observing still hashes the labels, which is prom-client's own cost).
  const series = new Map<string, { observe: (seconds: number) => void }>();
  const seriesOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let child = series.get(key);
    if (!child) {
      child = requests.labels(method, route, String(status));
      series.set(key, child);
    }
    return child;
  };
  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      // The route pattern, not the path: one series per route whatever the IDs in it.
      seriesOf(c.req.method, c.req.routePath, c.res.status).observe((performance.now() - started) / 1000);
    }
  };

  async function render(): Promise<string> {
    const own = await Registry.merge([metricsRegistry, registry]).metrics();
    if (!deps.workerMetricsUrl) return own;
    try {
      const worker = await fetch(deps.workerMetricsUrl, { signal: AbortSignal.timeout(2000) });
      return `${own}\n${await worker.text()}`;
    } catch {
      return own; // the worker's exporter is not up yet; the next scrape has it
    }
  }

  return { middleware, render, contentType: registry.contentType };
}
