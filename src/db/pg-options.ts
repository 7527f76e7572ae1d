/**
 * The limits every connection to PostgreSQL runs under (the ORM's pool, the integration-access pool, the LISTEN
 * connections), so a database that accepts TCP but never answers (a stuck proxy, a frozen network path) costs a
 * request a bounded time and a 503, and the pools heal by themselves once it answers again.
 */
import pg from 'pg';
import type { Config } from '../config.ts';
import { log } from '../log.ts';

export interface DatabaseLimits {
  /** Connecting, and waiting for a pooled connection. */
  connectTimeoutMs: number;
  /** One statement; 0: none (migrations run by hand). */
  queryTimeoutMs: number;
  /** Idle time before TCP keepalive probes a connection whose peer may be gone. */
  keepAliveMs: number;
}

export const databaseLimits = (config: Pick<Config, 'DATABASE_CONNECT_TIMEOUT' | 'DATABASE_QUERY_TIMEOUT' | 'DATABASE_KEEPALIVE'>): DatabaseLimits => ({
  connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT,
  queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT,
  keepAliveMs: config.DATABASE_KEEPALIVE,
});

/** The client's own deadline comes after the server's, so a server that is alive cancels first and says why. */
const CLIENT_GRACE_MS = 1_000;

/** `pg` client and pool options for `limits`. */
export function pgOptions(limits: DatabaseLimits) {
  return {
    connectionTimeoutMillis: limits.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: limits.keepAliveMs,
    ...(limits.queryTimeoutMs > 0 ? { statement_timeout: limits.queryTimeoutMs, query_timeout: limits.queryTimeoutMs + CLIENT_GRACE_MS } : {}),
  } satisfies pg.ClientConfig;
}

/** pg's error when `query_timeout` passes without an answer. */
export const isReadTimeout = (err: unknown) => err instanceof Error && err.message === 'Query read timeout';

type Callback = (err: Error | null, result?: unknown) => void;

/**
 * A connection whose query got no answer in time is closed, not handed back to the pool: the server may never
 * answer on it again (the reply was lost with a frozen path), and every later query on it would wait behind the
 * first. pg leaves it open (kysely, under the ORM, returns it to the pool as healthy), so each pooled client's
 * `query` is watched, promise or callback alike; a closed client is dropped by the pool and replaced on demand.
 */
export function dropOnReadTimeout(client: pg.PoolClient | pg.Client): void {
  const drop = (err: unknown) => {
    if (isReadTimeout(err)) (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  };
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (err: Error | null, result?: unknown) => {
        drop(err);
        (last as Callback)(err, result);
      };
    }
    const result = query(...args);
    if (result instanceof Promise) result.catch(drop);
    return result;
  };
}

/**
 * A `pg` pool of its own under `limits`, for the paths that bypass the ORM (the integration routes, the SMTP budget's
 * leases). An idle connection that fails (a database restart, a terminated backend) is logged and replaced on demand:
 * without this listener pg's 'error' event would end the process.
 */
export function limitedPool(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_CONNECT_TIMEOUT' | 'DATABASE_QUERY_TIMEOUT' | 'DATABASE_KEEPALIVE'>, max: number, what: string, extra: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max, ...pgOptions(databaseLimits(config)), ...extra });
  pool.on('connect', dropOnReadTimeout);
  pool.on('error', (err) => log.warn(`idle ${what} connection failed`, { error: err.message }));
  return pool;
}
