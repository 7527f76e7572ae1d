/**
 * The project's worker with the enrichment tests' fast provider adapters, as an entry point for
 * `startWorkerProcess(env, { main })` (test/support/worker-process.ts) in tests that kill it. Configuration comes
 * from the environment like production; WORKFLOW_BUNDLE_PATH is the run's prebuilt bundle. Logs `worker running`
 * once it polls, as src/main.ts does.
 */
import { createActivityDeps } from '../../../activities/deps.ts';
import { loadConfig } from '../../../src/config.ts';
import { initOrm } from '../../../src/db/orm.ts';
import { log } from '../../../src/log.ts';
import { createWorker } from '../../../src/worker.ts';
import { withFastProviders } from './world.ts';

const config = loadConfig();
const orm = await initOrm(config.DATABASE_URL!, { pool: { max: 5 } });
const bundle = process.env.WORKFLOW_BUNDLE_PATH;
const { worker } = await createWorker(config, withFastProviders(createActivityDeps(config, orm)), {
  ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
});
const running = worker.run();
log.info('worker running', { taskQueue: config.TEMPORAL_TASK_QUEUE });
await running;
await orm.close();
