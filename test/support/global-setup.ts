import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { initOrm, migrateUp } from '../../src/db/orm.ts';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
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

const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/test';
const EMBEDDED_PORT = 5434;

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    const settle = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
    socket.once('timeout', () => settle(false));
  });

/**
 * TEST_DATABASE_URL, else a local PostgreSQL on 5432, else (a fresh machine) an embedded PostgreSQL kept
 * under .data/test-postgres, so `npm test` needs nothing installed beyond `npm install`.
 */
async function adminDatabase(): Promise<{ url: string; stop: () => Promise<unknown> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => undefined };
  if (await accepts(5432)) return { url: LOCAL_URL, stop: async () => undefined };
  const pg = await startEmbeddedPostgres({
    dataDir: path.join(import.meta.dirname, '../../.data/test-postgres'),
    port: EMBEDDED_PORT,
    signal: new AbortController().signal,
    log: (line) => console.log(`[test-postgres] ${line}`),
  });
  const url = new URL(pg.url);
  url.pathname = '/postgres';
  return { url: url.toString(), stop: () => pg.process.stop() };
}

async function createDatabase(ADMIN_URL: string): Promise<{ url: string; drop: () => Promise<void> }> {
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
  const admin = await adminDatabase();
  const db = await createDatabase(admin.url);
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
    await admin.stop();
  };
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: console.error };
