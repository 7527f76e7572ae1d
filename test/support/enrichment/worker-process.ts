/**
 * The project's worker as its own process, for tests that kill it (SIGKILL: no drain, no goodbye).
 * Configuration comes from the environment like production; WORKFLOW_BUNDLE_PATH is the run's prebuilt
 * bundle. Prints `worker ready` once it polls.
 */
import { createActivityDeps } from '../../../activities/deps.ts';
import { loadConfig } from '../../../src/config.ts';
import { initOrm } from '../../../src/db/orm.ts';
import { createWorker } from '../../../src/worker.ts';
import { withFastProviders } from './world.ts';

const config = loadConfig();
const orm = await initOrm(config.DATABASE_URL!, { pool: { max: 5 } });
const bundle = process.env.WORKFLOW_BUNDLE_PATH;
const { worker } = await createWorker(config, withFastProviders(createActivityDeps(config, orm)), {
  ...(bundle ? { workflowBundle: { codePath: bundle } } : {}),
});
const running = worker.run();
process.stdout.write('worker ready\n');
await running;
await orm.close();
