import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { WORKFLOWS_PATH } from '../../src/worker.ts';
import { adminDatabase, createScratchDatabase, startScratchTemporal } from './scratch.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

export default async function setup(project: TestProject) {
  const admin = await adminDatabase();
  const db = await createScratchDatabase(admin.url, 'le_test');
  const temporal = await startScratchTemporal({ log: (line) => console.log(`[temporal-cli] ${line}`) });

  const dir = await mkdtemp(path.join(os.tmpdir(), 'le-workflows-'));
  const bundlePath = path.join(dir, 'workflows.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
  await writeFile(bundlePath, code);

  project.provide('databaseUrl', db.url);
  project.provide('temporalAddress', temporal.address);
  project.provide('workflowBundlePath', bundlePath);

  return async () => {
    await temporal.teardown();
    await rm(dir, { recursive: true, force: true });
    await db.drop();
    await admin.stop();
  };
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };
