import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { GroupedCalls } from '../concurrency.ts';
import {
  acquireLeases,
  type BudgetKey,
  type LeaseAnswer,
  type LeaseRequest,
  learnPatience,
  recoverHost,
  releaseLeases,
  renewLeases,
  type SharedPatience,
  throttleHost,
} from './repository-budget.ts';
import type { MxProvider, ProviderLimits } from '../domain/mx-provider.ts';
import { log } from '../log.ts';
import { smtpLeaseWaits, smtpLeaseWaitSeconds } from '../metrics.ts';
import { SmtpLeaseLostError } from './errors.ts';

export type { BudgetKey, SharedPatience } from './repository-budget.ts';

/** CONTRACT §11: a dead worker's share is back within 30 s; leases are renewed every third of this. */
export const LEASE_TTL_MS = 15_000;
/** How often a full host is asked again (jittered): a released slot is taken within about this long. */
const FULL_POLL_MS = 100;
/** A database that does not answer is asked again this often; sessions wait meanwhile. */
const DOWN_RETRY_MS = 500;
/** Most leases taken or released in one statement: a wave's worth, each a few rows. */
const MAX_GROUP = 200;

export interface SessionLease {
  /** The host's shared state when the lease was granted. */
  allowed: number;
  patience: SharedPatience;
  /** Settles once the slot is free for every process (or the release failed: then the lease expires). */
  release: () => Promise<void>;
  /**
   * Aborts when the lease may be gone (not renewed in time, or cleared as expired by another process): another
   * session may hold the slot now, so this one must end.
   */
  lost: AbortSignal;
}

interface HeldLease {
  lost: AbortController;
  host: string;
  /** When the lease runs out, as far as this process knows (the start of its last successful renewal + TTL). */
  expiresBy: number;
}

/**
 * The cross-process half of a host's politeness (CONTRACT §11), held in PostgreSQL: one lease per SMTP
 * session, renewed while the session lives, and the adaptive state every process learns from. The
 * in-process half (HostPacing, FairSlots) still orders who waits; this decides who may open.
 */
export class SharedBudget {
  readonly #pool: Pool;
  readonly #holder: string;
  readonly #ttlMs: number;
  readonly #held = new Map<string, HeldLease>();
  #renewer: NodeJS.Timeout | null = null;
  /**
   * Acquires and releases grouped while one is on its way: a wave of sessions ends and the next begins at once, and a
   * statement (and commit) each kept every new session 20–60 ms from its lease on a busy database. A release and
   * another process's acquire may both delete an expired lease; should two groups wait on each other for two such
   * rows, PostgreSQL fails one: its acquires are asked again, its releases left to the leases' expiry.
   */
  readonly #acquires: GroupedCalls<LeaseRequest, LeaseAnswer>;
  readonly #releases: GroupedCalls<string, void>;

  constructor(pool: Pool, options: { holder?: string; ttlMs?: number } = {}) {
    this.#pool = pool;
    this.#holder = (options.holder ?? `${hostname()} pid ${process.pid}`).slice(0, 100);
    this.#ttlMs = options.ttlMs ?? LEASE_TTL_MS;
    const lease = { holder: this.#holder, ttlMs: this.#ttlMs };
    this.#acquires = new GroupedCalls((requests) => acquireLeases(pool, requests, lease), MAX_GROUP);
    this.#releases = new GroupedCalls<string, void>(async (ids) => {
      await releaseLeases(pool, ids);
      return ids.map(() => undefined);
    }, MAX_GROUP);
  }

  /** Leases this process holds now. */
  get held(): number {
    return this.#held.size;
  }

  /**
   * Waits until the host's budget (for this egress, across every process) lets one more session open and
   * takes a lease for it; null once `signal` aborts. A database that is down is waited for, not failed on.
   * With `once`, a single try: null when the budget says wait (or the database did not answer).
   */
  async acquire(
    key: BudgetKey,
    limits: ProviderLimits,
    labels: { mx_provider: MxProvider },
    signal: AbortSignal,
    { once = false }: { once?: boolean } = {},
  ): Promise<SessionLease | null> {
    const started = Date.now();
    let waited = false;
    const metric = { ...labels, egress: key.egress };
    try {
      for (;;) {
        if (signal.aborted) return null;
        const id = randomUUID();
        const asked = Date.now();
        let delay: number;
        try {
          const answer = await this.#acquires.call({ key, limits, id });
          if (answer.waitMs === 0) {
            if (signal.aborted) {
              void this.#releases.call(id).catch(() => undefined);
              return null;
            }
            return this.#take(id, key.host, answer.allowed, answer.patience, asked);
          }
          delay = answer.waitMs > 0 ? answer.waitMs : FULL_POLL_MS * (0.5 + Math.random());
        } catch (error) {
          log.warn('SMTP lease: the database did not answer; waiting', { error: String(error), host: key.host });
          delay = DOWN_RETRY_MS;
        }
        if (once) return null;
        if (!waited) smtpLeaseWaits.inc(metric);
        waited = true;
        await sleep(delay, undefined, { signal }).catch(() => undefined);
      }
    } finally {
      if (waited) smtpLeaseWaitSeconds.inc(metric, (Date.now() - started) / 1000);
    }
  }

  #take(id: string, host: string, allowed: number, patience: SharedPatience, askedAt: number): SessionLease {
    const held: HeldLease = { lost: new AbortController(), host, expiresBy: askedAt + this.#ttlMs };
    this.#held.set(id, held);
    this.#renewer ??= setInterval(() => this.#renew(), Math.floor(this.#ttlMs / 3)).unref();
    return {
      allowed,
      patience,
      lost: held.lost.signal,
      release: async () => {
        if (!this.#held.delete(id)) return;
        if (this.#held.size === 0 && this.#renewer) {
          clearInterval(this.#renewer);
          this.#renewer = null;
        }
        // A release that fails is covered by the lease's expiry.
        await this.#releases.call(id).catch(() => undefined);
      },
    };
  }

  #renew(): void {
    const asked = Date.now();
    const ids = [...this.#held.keys()];
    renewLeases(this.#pool, ids, this.#ttlMs).then(
      (renewed) => {
        for (const id of ids) {
          const held = this.#held.get(id);
          if (!held) continue;
          if (renewed.has(id)) held.expiresBy = asked + this.#ttlMs;
          else this.#lose(held, 'was cleared as expired');
        }
      },
      (error: unknown) => {
        log.warn('SMTP lease renewal failed; retried at the next tick', { error: String(error) });
        // A lease that may run out before the next tick could renew it is given up now, not overstayed.
        const deadline = Date.now() + Math.floor(this.#ttlMs / 3) + 1_000;
        for (const held of this.#held.values()) if (held.expiresBy < deadline) this.#lose(held, 'could not be renewed in time');
      },
    );
  }

  /** The session ends (its connection is closed, its addresses queued again); its slot stays counted until then. */
  #lose(held: HeldLease, why: string): void {
    if (held.lost.signal.aborted) return;
    log.warn('SMTP lease lost; its session ends', { host: held.host, why });
    held.lost.abort(new SmtpLeaseLostError(held.host, `the session's lease on ${held.host} ${why}`));
  }

  /** The host showed a throttling sign: every process's sessions there halve and pause. */
  throttled(key: BudgetKey, pauseMs: number): void {
    throttleHost(this.#pool, key, Math.round(pauseMs)).catch((error: unknown) => log.warn('SMTP budget update failed', { error: String(error) }));
  }

  recovered(key: BudgetKey, limit: number): void {
    recoverHost(this.#pool, key, limit).catch((error: unknown) => log.warn('SMTP budget update failed', { error: String(error) }));
  }

  learnt(key: BudgetKey, patience: 'patient' | 'tarpits'): void {
    learnPatience(this.#pool, key, patience).catch((error: unknown) => log.warn('SMTP budget update failed', { error: String(error) }));
  }
}
