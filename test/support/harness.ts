import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { inject } from 'vitest';
import { type ActivityDeps, createActivityDeps } from '../../activities/deps.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { databaseLimits } from '../../src/db/pg-options.ts';
import { createApp } from '../../src/http/app.ts';
import { type IntegrationAccess, startIntegrationAccess } from '../../src/integration-access.ts';
import { createTemporalClient } from '../../src/temporal/client.ts';
import { createWorker } from '../../src/worker.ts';
import { Agent } from './agent.ts';

export interface Harness {
  config: Config;
  orm: Orm;
  temporal: Client;
  app: ReturnType<typeof createApp>;
  /** The pg pool the hot path queries through. */
  pool: IntegrationAccess['pool'];
  worker: Worker | null;
  /** Raw SQL for assertions on what was stored. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are asserted field by field
  sql(query: string, params?: unknown[]): Promise<any[]>;
  /** A fresh signed-up user with its own organization. */
  signup(overrides?: { credits?: number }): Promise<{ agent: Agent; organizationId: string; email: string }>;
  stop(): Promise<void>;
}

/**
 * The app wired to the run's PostgreSQL and Temporal, with the project's real worker on a task queue of
 * its own (so parallel test files never run each other's workflows).
 */
export async function startHarness(
  options: { env?: Record<string, string>; worker?: boolean; deps?: (base: ActivityDeps) => ActivityDeps } = {},
): Promise<Harness> {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    LOG_LEVEL: 'error',
    APP_ORIGINS: 'http://app.test',
    // Tests fire many requests per session; those that exercise the rate limit pass their own budget.
    RATE_LIMIT_BURST: '1000000',
    SIGNUP_PER_HOUR: '1000000',
    LOGIN_PER_MINUTE: '1000000',
    DATABASE_POOL_MAX: '5',
    // Test mail worlds serve none of the real canary domains; the environment tests name their own.
    SMTP_CANARY_DOMAINS: '',
    ...options.env,
  });
  const orm = await initOrm(config.DATABASE_URL!, { pool: { max: 5 } }, databaseLimits(config));
  const temporal = createTemporalClient(config);
  const integrationAccess = startIntegrationAccess(config);
  const app = createApp({ config, orm, temporal, ...integrationAccess });

  let worker: Worker | null = null;
  let running: Promise<void> | null = null;
  let closeWorkerConnection = async () => {};
  if (options.worker) {
    const base = createActivityDeps(config, orm);
    const handle = await createWorker(config, options.deps ? options.deps(base) : base, {
      workflowBundle: { codePath: inject('workflowBundlePath') },
      shutdownGraceTime: '2s',
    });
    worker = handle.worker;
    running = worker.run();
    closeWorkerConnection = () => handle.connection.close();
  }

  return {
    config,
    orm,
    temporal,
    app,
    pool: integrationAccess.pool,
    worker,
    sql: (query, params = []) => orm.em.fork().getConnection().execute(query, params),
    async signup(overrides = {}) {
      const agent = new Agent(app);
      const email = `user-${randomUUID()}@example.test`;
      const res = await agent.post('/api/auth/signup', { email, password: 'correct horse battery', organizationName: 'Acme' });
      if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${JSON.stringify(res.body)}`);
      const organizationId = res.body.organization.id as string;
      if (overrides.credits) {
        const { applyCredits } = await import('../../src/accounts/credits.ts');
        await applyCredits(orm.em.fork(), {
          organizationId,
          delta: overrides.credits,
          reason: 'test grant',
          idempotencyKey: `test:${randomUUID()}`,
        });
      }
      return { agent, organizationId, email };
    },
    async stop() {
      if (worker && running) {
        // A test may already have shut the worker down (to hand its jobs to another worker).
        if (worker.getState() === 'RUNNING') worker.shutdown();
        await running;
        await closeWorkerConnection();
      }
      await temporal.connection.close();
      await integrationAccess.close();
      await orm.close();
    },
  };
}
