/** Scratch PostgreSQL databases and Temporal dev servers, shared by the test global setup and the benches. */
import net from 'node:net';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { initOrm, migrateUp } from '../../src/db/orm.ts';
import { startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
import { resolveTemporalCli } from '../../src/dev/temporal-cli.ts';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.ts';

export const LOCAL_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
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
export async function adminDatabase(): Promise<{ url: string; stop: () => Promise<unknown> }> {
  if (process.env.TEST_DATABASE_URL) return { url: process.env.TEST_DATABASE_URL, stop: async () => undefined };
  if (await accepts(5432)) return { url: LOCAL_ADMIN_URL, stop: async () => undefined };
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

async function adminExecute(adminUrl: string, sql: string): Promise<void> {
  const admin = await MikroORM.init({ clientUrl: adminUrl, entities: [], discovery: { warnWhenNoEntities: false } });
  try {
    await admin.em.getConnection().execute(sql);
  } finally {
    await admin.close();
  }
}

/** Creates `<prefix>_<pid>_<time>` on the admin URL's server and applies every migration to it. */
export async function createScratchDatabase(adminUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`;
  await adminExecute(adminUrl, `create database "${name}"`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const drop = () => adminExecute(adminUrl, `drop database if exists "${name}" with (force)`);
  try {
    const orm = await initOrm(url.toString());
    try {
      await migrateUp(orm);
    } finally {
      await orm.close();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { url: url.toString(), drop };
}

/** A Temporal dev server on loopback with the project's search attributes registered. */
export async function startScratchTemporal(
  options: { log?: (line: string) => void } = {},
): Promise<{ address: string; env: TestWorkflowEnvironment; teardown: () => Promise<void> }> {
  const cli = await resolveTemporalCli({ install: true, log: options.log ?? (() => undefined) });
  if (!cli) throw new Error('No Temporal CLI: set TEMPORAL_CLI_PATH or install Go so it can be built');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: cli },
      ip: '127.0.0.1',
      searchAttributes: Object.values(SEARCH_ATTRIBUTE_KEYS),
      extraArgs: ['--log-level', 'error'],
    },
  });
  return { address: env.address, env, teardown: () => env.teardown() };
}
