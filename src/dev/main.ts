import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describeExit, startChild, type ExitStatus } from './child-process.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';
import { startSandbox } from '../sandbox/sandbox.ts';
import { loadDevEnv, type DevEnv } from './env.ts';
import { assertPortsFree, type PortClaim } from './ports.ts';
import { startTemporalDevServer } from './temporal-server.ts';
import { waitFor } from './wait.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DATA_DIR = path.join(ROOT, '.data');

interface Service {
  name: string;
  exited: Promise<ExitStatus>;
  stop(): Promise<unknown>;
}

interface Endpoints {
  databaseUrl: string;
  temporalAddress: string;
  lines: string[];
}

const log = (line: string): void => console.log(`[dev] ${line}`);

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message}\n  cause: ${err.cause.message}` : err.message;
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** Resolves with the first service that stops on its own, or with nothing once shutdown is requested. */
function firstToStop(
  services: Service[],
  shutdown: AbortSignal,
): Promise<{ name: string; status: ExitStatus } | null> {
  return new Promise((resolve) => {
    if (shutdown.aborted) resolve(null);
    shutdown.addEventListener('abort', () => resolve(null), { once: true });
    for (const service of services)
      void service.exited.then((status) => resolve({ name: service.name, status }));
  });
}

function portsToClaim(env: DevEnv): PortClaim[] {
  const claims: PortClaim[] = [{ port: env.PORT, variable: 'PORT', service: 'API' }];
  if (!env.DATABASE_URL)
    claims.push({ port: env.DEV_PG_PORT, variable: 'DEV_PG_PORT', service: 'PostgreSQL' });
  if (!env.TEMPORAL_ADDRESS) {
    claims.push(
      { port: env.DEV_TEMPORAL_PORT, variable: 'DEV_TEMPORAL_PORT', service: 'Temporal' },
      { port: env.DEV_TEMPORAL_UI_PORT, variable: 'DEV_TEMPORAL_UI_PORT', service: 'Temporal UI' },
    );
  }
  return claims;
}

/** Starts what the environment does not provide, pushing each service as soon as it runs so it gets stopped. */
async function startBackingServices(
  env: DevEnv,
  services: Service[],
  shutdown: AbortSignal,
): Promise<Endpoints> {
  const lines: string[] = [];
  let databaseUrl = env.DATABASE_URL;
  if (databaseUrl) {
    log('Using the PostgreSQL from DATABASE_URL.');
  } else {
    const postgres = await startEmbeddedPostgres({
      dataDir: path.join(DATA_DIR, 'postgres'),
      port: env.DEV_PG_PORT,
      signal: shutdown,
      log,
    });
    services.push({
      name: 'PostgreSQL',
      exited: postgres.process.exited,
      stop: () => postgres.process.stop(),
    });
    databaseUrl = postgres.url;
    lines.push(`PostgreSQL   ${postgres.url}`);
  }

  let temporalAddress = env.TEMPORAL_ADDRESS;
  if (temporalAddress) {
    log(`Using the Temporal server at ${temporalAddress} (TEMPORAL_ADDRESS).`);
    lines.push(`Temporal     ${temporalAddress}`);
  } else {
    await mkdir(DATA_DIR, { recursive: true });
    const temporal = await startTemporalDevServer({
      ip: '127.0.0.1',
      port: env.DEV_TEMPORAL_PORT,
      uiPort: env.DEV_TEMPORAL_UI_PORT,
      dbFile: path.join(DATA_DIR, 'temporal.db'),
      namespace: env.TEMPORAL_NAMESPACE,
      signal: shutdown,
      log,
    });
    services.push({ name: 'Temporal dev server', exited: temporal.exited, stop: temporal.stop });
    temporalAddress = temporal.address;
    lines.push(`Temporal UI  ${temporal.uiUrl}`, `Temporal     ${temporal.address}`);
  }
  return { databaseUrl, temporalAddress, lines };
}

async function run(shutdown: AbortSignal): Promise<number> {
  const envFile = path.join(ROOT, '.env');
  // Variables already set in the shell win over the file.
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  let env: DevEnv;
  try {
    env = loadDevEnv();
  } catch (err) {
    console.error(`[dev] ${describeError(err)}`);
    return 1;
  }
  const services: Service[] = [];
  let exitCode = 0;
  try {
    await assertPortsFree(portsToClaim(env));
    const backing = await startBackingServices(env, services, shutdown);
    const sandbox = await startSandbox(process.env);
    services.push({ name: 'sandbox', exited: new Promise<ExitStatus>(() => {}), stop: () => sandbox.stop() });
    const app = startChild('app', process.execPath, [path.join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        ...sandbox.env,
        ROLE: 'all',
        DATABASE_URL: backing.databaseUrl,
        TEMPORAL_ADDRESS: backing.temporalAddress,
        TEMPORAL_NAMESPACE: env.TEMPORAL_NAMESPACE,
      },
      output: 'inherit',
      // The app drains on SIGTERM: in-flight requests and activities finish first.
      stopSignal: 'SIGTERM',
      stopGraceMs: 30_000,
    });
    services.push({ name: 'app', exited: app.exited, stop: () => app.stop() });
    const api = `http://localhost:${env.PORT}`;
    await waitFor('The API', () => answers(`http://127.0.0.1:${env.PORT}/healthz`), {
      child: app,
      signal: shutdown,
      // The first start applies every migration.
      timeoutMs: 120_000,
    });

    const banner = [`Dashboard    ${api}/`, `API          ${api}/api`, `API docs     ${api}/docs`, ...backing.lines];
    if (sandbox.pieces.length > 0) {
      banner.push(`Sandbox      ${sandbox.pieces.join(', ')}: made-up data, no keys needed (README "The sandbox"; a real key replaces its piece)`);
    }
    console.log(
      ['', '[dev] Ready.', ...banner.map((line) => `  ${line}`), '  Ctrl-C stops everything.', ''].join('\n'),
    );

    const stopped = await firstToStop(services, shutdown);
    if (stopped) {
      log(`${stopped.name} stopped on its own (${describeExit(stopped.status)}); shutting the rest down.`);
      exitCode = 1;
    }
  } catch (err) {
    if (!shutdown.aborted) {
      console.error(`[dev] ${describeError(err)}`);
      exitCode = 1;
    }
  } finally {
    // Reverse start order: the app drains while its database and Temporal are still up.
    for (const service of services.reverse()) {
      log(`Stopping ${service.name}...`);
      try {
        await service.stop();
      } catch (err) {
        log(`${service.name} did not stop cleanly: ${describeError(err)}`);
      }
    }
    log('Stopped.');
  }
  return exitCode;
}

const shutdown = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (shutdown.signal.aborted) {
      log(`${signal} again: exiting without waiting for the services.`);
      process.exit(1);
    }
    log(`${signal} received: shutting down (send it again to force).`);
    shutdown.abort();
  });
}
process.exitCode = await run(shutdown.signal);
