import pg from 'pg';
import { log } from '../log.ts';
import { type DatabaseLimits, pgOptions, watchReads } from './pg-options.ts';

export interface ListenerEvents {
  /** A notification on the channel, with its payload. */
  notify(payload: string): void;
  /** Listening (again): notifications sent while disconnected are lost, so whatever they guard must be refreshed. */
  connected(): void;
  /** The connection dropped: until `connected`, nothing will be pushed. */
  disconnected(): void;
}

export interface Listener {
  /** Settles once the first LISTEN is in place. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const MAX_BACKOFF_MS = 5_000;

/**
 * LISTEN on one channel over a dedicated connection (a pooled one would be handed to other queries), and
 * keep listening: a lost connection is retried with backoff until `close`.
 */
export function listen(databaseUrl: string, limits: DatabaseLimits, channel: string, events: ListenerEvents): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let backoff = 100;
  let retry: NodeJS.Timeout | null = null;
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  function lost(err?: Error) {
    if (closed || !client) return;
    const dead = client;
    client = null;
    dead.removeAllListeners();
    dead.on('error', () => {}); // a late error from the dead socket must not crash the process
    void dead.end().catch(() => {});
    events.disconnected();
    log.warn('notification listener disconnected', { channel, error: err?.message });
    retry = setTimeout(connect, backoff);
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }

  async function connect() {
    retry = null;
    const next = new pg.Client({ connectionString: databaseUrl, ...pgOptions(limits), application_name: `listen:${channel}:${process.pid}` });
    client = next;
    next.on('error', lost);
    next.on('end', () => lost());
    next.on('notification', (message) => {
      if (message.channel === channel) events.notify(message.payload ?? '');
    });
    try {
      await next.connect();
      watchReads(limits)(next);
      await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      if (client === next) lost(err as Error);
      return;
    }
    if (closed) return void next.end().catch(() => {});
    backoff = 100;
    events.connected();
    markReady();
  }

  void connect();
  return {
    ready,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const current = client;
      client = null;
      current?.removeAllListeners();
      current?.on('error', () => {});
      await current?.end().catch(() => {});
    },
  };
}
