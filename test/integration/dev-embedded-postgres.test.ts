import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_DATABASE, startEmbeddedPostgres } from '../../src/dev/embedded-postgres.ts';
import { freePort } from '../support/worker-process.ts';


async function execute(url: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const orm = await MikroORM.init({ clientUrl: url, entities: [], discovery: { warnWhenNoEntities: false } });
  try {
    return await orm.em.getConnection().execute(sql);
  } finally {
    await orm.close();
  }
}

describe('npm run dev: embedded PostgreSQL', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'dev-pg-'));
    // As root the server runs as the postgres OS user, which must be able to reach the data directory.
    await chmod(root, 0o755);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('initialises once, creates the database, stops, and reuses the data on the next start', async () => {
    const dataDir = path.join(root, 'postgres');
    const port = await freePort();
    const lines: string[] = [];
    const options = {
      dataDir,
      port,
      signal: new AbortController().signal,
      log: (line: string) => lines.push(line),
    };

    const first = await startEmbeddedPostgres(options);
    expect(first.url).toBe(`postgres://postgres:postgres@127.0.0.1:${port}/${DEV_DATABASE}`);
    expect(lines).toContain(`Initialising PostgreSQL data in ${dataDir}.`);
    expect(lines).toContain(`Created database ${DEV_DATABASE}.`);
    await execute(first.url, 'create table marker (id int primary key); insert into marker values (42)');
    await first.process.stop();
    expect(first.process.isRunning()).toBe(false);

    lines.length = 0;
    const second = await startEmbeddedPostgres(options);
    try {
      expect(lines).toEqual([`Reusing PostgreSQL data in ${dataDir}.`]);
      expect(await execute(second.url, 'select id from marker')).toEqual([{ id: 42 }]);
    } finally {
      await second.process.stop();
    }
  });
});
