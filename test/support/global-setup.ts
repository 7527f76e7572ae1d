import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { initOrm, migrateUp } from '../../src/db/orm.ts';
import { resolveTemporalCli } from '../../src/dev/temporal-cli.ts';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.ts';
import { WORKFLOWS_PATH } from '../../src/temporal/worker.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    workflowBundlePath: string;
  }
}

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function createDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `le_test_${process.pid}_${Date.now().toString(36)}`;
  const admin = await MikroORM.init({ clientUrl: ADMIN_URL, entities: [], discovery: { warnWhenNoEntities: false } });
  await admin.em.getConnection().execute(`create database "${name}"`);
  await admin.close();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const again = await MikroORM.init({ clientUrl: ADMIN_URL, entities: [], discovery: { warnWhenNoEntities: false } });
      await again.em.getConnection().execute(`drop database if exists "${name}" with (force)`);
      await again.close();
    },
  };
}

export default async function setup(project: TestProject) {
  const db = await createDatabase();
  const orm = await initOrm(db.url);
  await migrateUp(orm);
  await orm.close();

  const cli = await resolveTemporalCli({ install: true, log: (line) => console.log(`[temporal-cli] ${line}`) });
  if (!cli) throw new Error('No Temporal CLI: set TEMPORAL_CLI_PATH or install Go so it can be built');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli },
      ip: '127.0.0.1',
      searchAttributes: Object.values(SEARCH_ATTRIBUTE_KEYS),
      extraArgs: ['--log-level', 'error'],
    },
  });

  const dir = await mkdtemp(path.join(os.tmpdir(), 'le-workflows-'));
  const bundlePath = path.join(dir, 'workflows.js');
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: quietLogger });
  await writeFile(bundlePath, code);

  project.provide('databaseUrl', db.url);
  project.provide('temporalAddress', env.address);
  project.provide('workflowBundlePath', bundlePath);

  return async () => {
    await env.teardown();
    await rm(dir, { recursive: true, force: true });
    await db.drop();
  };
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };
