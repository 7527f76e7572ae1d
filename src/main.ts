import { ConfigError, loadConfig } from './config.ts';
import { initOrm, migrateUp } from './db/orm.ts';
import { databaseLimits } from './db/pg-options.ts';
import { createApp } from './http/app.ts';
import { listen } from './http/server.ts';
import { startIntegrationAccess } from './integration-access.ts';
import { log, setLogLevel } from './log.ts';
import { createTemporalClient } from './temporal/client.ts';
import { startTracing } from './temporal/tracing.ts';
import { ensureMaintenance } from './temporal/maintenance.ts';

/** ROLE=all runs the API and the worker in one process; api and worker run them apart. */
async function main() {
  const config = loadConfig();
  setLogLevel(config.LOG_LEVEL);
  if (!config.DATABASE_URL) throw new ConfigError('Invalid configuration:\n  DATABASE_URL: is required (or use `npm run dev`)');
  const orm = await initOrm(config.DATABASE_URL, { pool: { max: config.DATABASE_POOL_MAX } }, databaseLimits(config));
  const stops: Array<() => Promise<void>> = [];
  const tracing = await startTracing(config);
  const plugins = tracing ? [tracing.plugin] : [];

  // Built before the API so that, in one process, readyz can report what the worker's prober sees. The worker's
  // modules (the SDK's native runtime, the activities) are loaded only by a role that runs them: they are about
  // 40 MB of an API process's resident memory, which its container limit counts.
  const activityDeps = config.ROLE === 'api' ? null : (await import('../activities/deps.ts')).createActivityDeps(config, orm);

  if (config.ROLE !== 'worker') {
    const applied = await migrateUp(orm);
    if (applied.length) log.info('migrations applied', { applied });
    const temporal = createTemporalClient(config, plugins);
    const integrationAccess = startIntegrationAccess(config);
    const workerMetricsUrl = config.ROLE === 'all' && config.METRICS_ENABLED ? `http://${config.WORKER_METRICS_ADDRESS}/metrics` : undefined;
    const app = createApp({ config, orm, temporal, workerMetricsUrl, smtpEnvironment: activityDeps?.prober.environment, smtpEgress: activityDeps?.prober, ...integrationAccess });
    const server = listen(app.fetch, { port: config.PORT }, (info) =>
      log.info('api listening', { url: `http://localhost:${info.port}`, dashboard: `http://localhost:${info.port}/`, docs: `http://localhost:${info.port}/docs` }),
    );
    stops.push(
      () => new Promise<void>((resolve) => server.close(() => resolve())),
      () => temporal.connection.close(),
      () => integrationAccess.close(),
    );
  }

  if (activityDeps) {
    const [{ DefaultLogger, Runtime }, { createWorker }] = await Promise.all([import('@temporalio/worker'), import('./worker.ts')]);
    // Our handler below drains in order (HTTP first, then the worker); the SDK's own handlers would race it.
    Runtime.install({
      shutdownSignals: [],
      logger: new DefaultLogger(config.LOG_LEVEL === 'debug' ? 'DEBUG' : 'WARN'),
      ...(config.METRICS_ENABLED ? { telemetryOptions: { metrics: { prometheus: { bindAddress: config.WORKER_METRICS_ADDRESS } } } } : {}),
    });
    const { worker, connection } = await createWorker(config, activityDeps, { plugins });
    const running = worker.run();
    log.info('worker running', { taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE });
    const client = createTemporalClient(config, plugins);
    // Not awaited: housekeeping must not hold up the worker; a failure is logged and the next worker start tries again.
    ensureMaintenance(client, config).catch((error: unknown) => log.warn('housekeeping workflow not started', { error: String(error) }));
    stops.push(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
      await client.connection.close();
    });
  }

  // The last line of defence: an error that escaped its request (each known cause is handled where it arises)
  // is logged, and every other request and activity goes on, instead of the whole process exiting.
  process.on('uncaughtException', (err) => log.error('uncaught exception; still serving', { error: err.stack ?? String(err) }));
  process.on('unhandledRejection', (err) =>
    log.error('unhandled rejection; still serving', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info('draining', { signal });
    for (const s of stops) await s();
    await orm.close();
    await tracing?.shutdown();
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
