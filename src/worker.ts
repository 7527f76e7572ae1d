import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { type ActivityDeps, createActivities } from '../activities/index.ts';
import type { Config } from './config.ts';
import { ActivityLogContext } from './temporal/log-context.ts';

export const WORKFLOWS_PATH = path.join(import.meta.dirname, '../workflows/index.ts');

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
