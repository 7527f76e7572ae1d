/**
 * One LISTEN connection per API process for `job_events` (see the job_notify migration), shared by every
 * live progress stream of the process. It is opened by the first subscriber and closed with the last, so a
 * process without streams holds no extra connection.
 */
import pg from 'pg';
import { log } from '../log.ts';
import { type DatabaseLimits, pgOptions, watchReads } from './pg-options.ts';

/** `stage`: the stage a change to the job's row left it in; absent for a change to its results (progress only). */
type Listener = (stage?: string) => void;

class JobNotifications {
  readonly #url: string;
  readonly #limits: DatabaseLimits;
  readonly #listeners = new Map<string, Set<Listener>>();
  #client: Promise<pg.Client> | null = null;

  constructor(url: string, limits: DatabaseLimits) {
    this.#url = url;
    this.#limits = limits;
  }

  /**
   * Calls `listener` after each committed change to the job named `key` (`verification:<id>`); returns the
   * unsubscribe. A job row's notification is `<key>:<stage>`, its results' the key alone.
   */
  async subscribe(key: string, listener: Listener): Promise<() => void> {
    const set = this.#listeners.get(key) ?? new Set();
    set.add(listener);
    this.#listeners.set(key, set);
    try {
      await this.#connect();
    } catch (error) {
      this.#remove(key, listener);
      throw error;
    }
    return () => this.#remove(key, listener);
  }

  #remove(key: string, listener: Listener) {
    const set = this.#listeners.get(key);
    set?.delete(listener);
    if (set?.size === 0) this.#listeners.delete(key);
    if (this.#listeners.size === 0 && this.#client) {
      const client = this.#client;
      this.#client = null;
      void client.then((c) => c.end()).catch(() => undefined);
    }
  }

  #connect(): Promise<pg.Client> {
    this.#client ??= (async () => {
      const client = new pg.Client({ connectionString: this.#url, ...pgOptions(this.#limits) });
      client.on('notification', ({ payload = '' }) => {
        const stageAt = payload.indexOf(':', payload.indexOf(':') + 1);
        const key = stageAt < 0 ? payload : payload.slice(0, stageAt);
        const stage = stageAt < 0 ? undefined : payload.slice(stageAt + 1);
        for (const listener of this.#listeners.get(key) ?? []) listener(stage);
      });
      client.on('error', (error) => {
        // Streams fall back to their periodic re-read; the next subscriber opens a fresh connection.
        log.warn('job notifications connection lost', { error: error.message });
        this.#client = null;
      });
      await client.connect();
      watchReads(this.#limits)(client);
      await client.query('listen job_events');
      return client;
    })();
    const pending = this.#client;
    pending.catch(() => {
      if (this.#client === pending) this.#client = null;
    });
    return pending;
  }
}

const byUrl = new Map<string, JobNotifications>();

export function jobNotifications(databaseUrl: string, limits: DatabaseLimits): JobNotifications {
  let hub = byUrl.get(databaseUrl);
  if (!hub) byUrl.set(databaseUrl, (hub = new JobNotifications(databaseUrl, limits)));
  return hub;
}
