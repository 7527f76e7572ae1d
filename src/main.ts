import { serve } from '@hono/node-server';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivityDeps } from '../activities/deps.ts';
import { ConfigError, loadConfig } from './config.ts';
import { initOrm, migrateUp } from './db/orm.ts';
import { createApp } from './http/app.ts';
import { startHotPath } from './hot-path.ts';
import { log, setLogLevel } from './log.ts';
import { createTemporalClient } from './temporal/client.ts';
import { createWorker } from './temporal/worker.ts';

/** ROLE=all runs the API and the worker in one process; api and worker run them apart. */
async function main() {
  const config = loadConfig();
  setLogLevel(config.LOG_LEVEL);
  if (!config.DATABASE_URL) throw new ConfigError('Invalid configuration:\n  DATABASE_URL: is required (or use `npm run dev`)');
  const orm = await initOrm(config.DATABASE_URL, { pool: { max: config.DATABASE_POOL_MAX } });
  const stops: Array<() => Promise<void>> = [];

  if (config.ROLE !== 'worker') {
    const applied = await migrateUp(orm);
    if (applied.length) log.info('migrations applied', { applied });
    const temporal = createTemporalClient(config);
    const hotPath = startHotPath(config);
    const app = createApp({ config, orm, temporal, ...hotPath });
    const server = serve({ fetch: app.fetch, port: config.PORT }, (info) =>
      log.info('api listening', { url: `http://localhost:${info.port}`, docs: `http://localhost:${info.port}/docs` }),
    );
    stops.push(
      () => new Promise<void>((resolve) => server.close(() => resolve())),
      () => temporal.connection.close(),
      () => hotPath.close(),
    );
  }

  if (config.ROLE !== 'api') {
    // Our handler below drains in order (HTTP first, then the worker); the SDK's own handlers would race it.
    Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(config.LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN') });
    const { worker, connection } = await createWorker(config, createActivityDeps(config, orm));
    const running = worker.run();
    log.info('worker running', { taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE });
    stops.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    });
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('draining', { signal });
    for (const s of stops) await s();
    await orm.close();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    log.error('start-up failed', { error: err instanceof Error ? err.stack : String(err) });
  }
  process.exit(1);
});
