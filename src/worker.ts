import path from 'node:path';
import v8 from 'node:v8';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type ActivityDeps, createActivities } from '../activities/index.ts';
import type { Config } from './config.ts';
import { ActivityLogContext } from './temporal/log-context.ts';

export const WORKFLOWS_PATH = path.join(import.meta.dirname, '../workflows/index.ts');

/**
 * How far V8 lets the heap grow past what the last full collection kept: 1.5 times instead of its own choice
 * (up to 4 times when collections are quick). The SMTP stage's queued addresses live a second or two, long
 * enough to reach the old generation, so a long job leaves garbage there at a steady rate: with V8's choice a
 * 1,000,000-address job's heap swung between 200 and 700 MB and its process peaked at 1.12 GB; at 1.5 times it
 * holds 180–400 MB and peaks at 0.72 GB, the job no slower beyond its run-to-run swing (README, the long job's
 * memory). A growth factor, not a cap: a worker that does need more memory still gets it. V8 refuses it in
 * NODE_OPTIONS, so it is set here, where every way of running the worker passes.
 */
const HEAP_GROWING_PERCENT = 50;

export interface WorkerHandle {
  worker: Worker;
  connection: NativeConnection;
}

/**
 * The project's worker: every workflow under workflows/ and every activity from createActivities(deps).
 * Tests pass a prebuilt `workflowBundle` so the webpack bundle is built once per run, not per file.
 */
export async function createWorker(
  config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE' | 'SMTP_PROBE_CONCURRENCY'>,
  deps: ActivityDeps,
  overrides: Partial<WorkerOptions> = {},
): Promise<WorkerHandle> {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    ...(overrides.workflowBundle ? {} : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities(deps),
    interceptors: { activity: [() => ({ inbound: new ActivityLogContext() })] },
    // Activities mostly wait on sockets (SMTP, providers, PostgreSQL), so many can run at once.
    maxConcurrentActivityTaskExecutions: Math.max(20, Math.ceil(config.SMTP_PROBE_CONCURRENCY / 2)),
    shutdownGraceTime: '30s',
    ...overrides,
  });
  return { worker, connection };
}
