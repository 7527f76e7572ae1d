/**
 * The HTTP API alone in its own process (a bench forks it), so its resident memory is measured without
 * the load generator's. IPC: sends `{ port }` when listening; answers `reset` (start a measurement:
 * baseline = current RSS), `report` (`{ baselineRss, peakRss }` sampled every 10 ms since the first reset) and `cpu`
 * (`{ cpuMicros }`: the process's CPU time so far, user and system).
 */
import { serve } from '@hono/node-server';
import { loadConfig } from '../../src/config.ts';
import { initOrm } from '../../src/db/orm.ts';
import { databaseLimits } from '../../src/db/pg-options.ts';
import { createApp } from '../../src/http/app.ts';
import { startIntegrationAccess } from '../../src/integration-access.ts';
import { setLogLevel } from '../../src/log.ts';
import { createTemporalClient } from '../../src/temporal/client.ts';

const config = loadConfig();
setLogLevel('error');
const orm = await initOrm(config.DATABASE_URL!, { pool: { max: config.DATABASE_POOL_MAX } }, databaseLimits(config));
const temporal = createTemporalClient(config);
const integrationAccess = startIntegrationAccess(config);
const app = createApp({ config, orm, temporal, ...integrationAccess });

let baselineRss = process.memoryUsage.rss();
let peakRss = baselineRss;
// Sampled only once a measurement starts: each sample reads /proc, which a throughput bench would pay for.
let sampler: NodeJS.Timeout | undefined;

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => process.send!({ port: info.port }));

process.on('message', (message: string) => {
  if (message === 'reset') {
    globalThis.gc?.();
    baselineRss = process.memoryUsage.rss();
    peakRss = baselineRss;
    sampler ??= setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }, 10).unref();
    process.send!({ reset: true });
  } else if (message === 'report') {
    process.send!({ baselineRss, peakRss: Math.max(peakRss, process.memoryUsage.rss()) });
  } else if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send!({ cpuMicros: user + system });
  } else if (message === 'stop') {
    server.close();
    void Promise.all([temporal.connection.close(), integrationAccess.close()]).then(() => orm.close()).then(() => process.exit(0));
  }
});
