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

/**
 * `pg` client and pool options for `limits`. The client's own deadline is not pg's `query_timeout` but
 * `watchReads` (installed on every connected client): pg's arms a timer and wraps the callback of every query,
 * and those per-query closures kept each request's garbage alive through young-generation collections (the API
 * process promoted about 5 KB per request; its scavenges took 10–100 ms instead of 1–2).
 */
export function pgOptions(limits: DatabaseLimits) {
  return {
    connectionTimeoutMillis: limits.connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: limits.keepAliveMs,
    // No JIT: this is short OLTP work, and a plan priced high only by disabled sorts (the snapshot's domain order)
    // made PostgreSQL spend 220–250 ms compiling a statement that then ran in under a millisecond.
    options: '-c jit=off',
    ...(limits.queryTimeoutMs > 0 ? { statement_timeout: limits.queryTimeoutMs } : {}),
  } satisfies pg.ClientConfig;
}

/** The error of a query that got no answer in time (pg's wording for its own `query_timeout`). */
const READ_TIMEOUT = 'Query read timeout';

/** The slices of pg's client the watch reads: the query on the wire and the socket under it. */
interface ClientInternals {
  _activeQuery: { callback?: (err: Error) => void } | null;
  connection: { stream: { destroy(): void } };
}

/**
 * A query that gets no answer within the query limit (plus CLIENT_GRACE_MS) fails with pg's own 'Query read
 * timeout', and its connection is closed, not handed back to the pool: the server may never answer on it again
 * (the reply was lost with a frozen path), and every later query on it would wait behind the first. One
 * unref'd check per client, a few times per deadline, looks at the query in flight: nothing is done per query.
 * Returns what to call with each connected client (a pool's 'connect' listener).
 */
export function watchReads(limits: DatabaseLimits): (client: pg.Client) => void {
  if (limits.queryTimeoutMs <= 0) return () => undefined;
  const deadlineMs = limits.queryTimeoutMs + CLIENT_GRACE_MS;
  const everyMs = Math.min(1_000, deadlineMs / 4);
  return (client) => {
    const internals = client as unknown as ClientInternals;
    let watched: ClientInternals['_activeQuery'] = null;
    let since = 0;
    const check = setInterval(() => {
      const active = internals._activeQuery;
      const now = performance.now();
      if (active !== watched) {
        watched = active;
        since = now;
      } else if (active && now - since >= deadlineMs) {
        // As pg's own query_timeout does: the caller hears of it once, whatever the closed socket says after.
        const callback = active.callback;
        active.callback = () => undefined;
        callback?.(new Error(READ_TIMEOUT));
        internals.connection.stream.destroy();
        clearInterval(check);
      }
    }, everyMs).unref();
    client.once('end', () => clearInterval(check));
  };
}

/**
 * A `pg` pool of its own under `limits`, for the paths that bypass the ORM (the integration routes, the SMTP budget's
 * leases). An idle connection that fails (a database restart, a terminated backend) is logged and replaced on demand:
 * without this listener pg's 'error' event would end the process.
 */
export function limitedPool(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_CONNECT_TIMEOUT' | 'DATABASE_QUERY_TIMEOUT' | 'DATABASE_KEEPALIVE'>, max: number, what: string, extra: pg.PoolConfig = {}): pg.Pool {
  const limits = databaseLimits(config);
  const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max, ...pgOptions(limits), ...extra });
  pool.on('connect', watchReads(limits));
  pool.on('error', (err) => log.warn(`idle ${what} connection failed`, { error: err.message }));
  return pool;
}
