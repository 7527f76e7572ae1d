import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_KEYS, TEMPORAL_SEARCH_ATTRIBUTES } from '../temporal/search-attributes.ts';
import { startChild, type ExitStatus } from './child-process.ts';
import { TemporalServerUnavailableError } from './errors.ts';
import { resolveTemporalCli, temporalCliCacheDir } from './temporal-cli.ts';
import { waitFor } from './wait.ts';

export interface TemporalDevServerOptions {
  ip: string;
  port: number;
  uiPort: number;
  /** SQLite file that keeps workflows across restarts. */
  dbFile: string;
  namespace: string;
  signal: AbortSignal;
  log: (line: string) => void;
}

export interface TemporalDevServer {
  address: string;
  uiUrl: string;
  /** Settles if the server stops on its own. */
  exited: Promise<ExitStatus>;
  stop(): Promise<unknown>;
}

async function namespaceAnswers(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1000 });
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

async function startWithCli(cli: string, opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const address = `${opts.ip}:${opts.port}`;
  const searchAttributes = Object.entries(TEMPORAL_SEARCH_ATTRIBUTES).flatMap(([name, type]) => [
    '--search-attribute',
    `${name}=${type}`,
  ]);
  let stopping = false;
  const server = startChild(
    'Temporal dev server',
    cli,
    [
      'server',
      'start-dev',
      '--ip',
      opts.ip,
      '--port',
      String(opts.port),
      '--ui-port',
      String(opts.uiPort),
      '--db-filename',
      opts.dbFile,
      '--namespace',
      opts.namespace,
      ...searchAttributes,
    ],
    {
      // While it stops, the server's own system workers warn about every poll it cuts short: noise, not news.
      output: (line) => {
        if (!stopping || /level=(ERROR|FATAL)/.test(line)) console.log(`[temporal] ${line}`);
      },
      stopSignal: 'SIGTERM',
      stopGraceMs: 15_000,
    },
  );
  const stop = () => {
    stopping = true;
    return server.stop();
  };
  try {
    await waitFor('Temporal dev server', () => namespaceAnswers(address, opts.namespace), {
      child: server,
      signal: opts.signal,
      timeoutMs: 60_000,
      intervalMs: 500,
    });
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, uiUrl: `http://localhost:${opts.uiPort}`, exited: server.exited, stop };
}

// Where the network allows, the SDK downloads and runs the dev server itself.
async function startWithSdkDownload(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  opts.log('Trying to download the Temporal dev server through @temporalio/testing.');
  const { TestWorkflowEnvironment } = await import('@temporalio/testing');
  try {
    const env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'cached-download', downloadDir: temporalCliCacheDir() },
        ip: opts.ip,
        port: opts.port,
        ui: true,
        uiPort: opts.uiPort,
        dbFilename: opts.dbFile,
        namespace: opts.namespace,
        searchAttributes: Object.values(SEARCH_ATTRIBUTE_KEYS),
      },
    });
    return {
      address: env.address,
      uiUrl: `http://localhost:${opts.uiPort}`,
      // The SDK owns this process and reports no exit; teardown stops it.
      exited: new Promise<ExitStatus>(() => undefined),
      stop: () => env.teardown(),
    };
  } catch (err) {
    throw new TemporalServerUnavailableError(err);
  }
}

/** Runs `temporal server start-dev` with our namespace and search attributes, and waits until it answers. */
export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const cli = await resolveTemporalCli({ install: true, log: opts.log, signal: opts.signal });
  opts.signal.throwIfAborted();
  return cli ? startWithCli(cli, opts) : startWithSdkDownload(opts);
}
