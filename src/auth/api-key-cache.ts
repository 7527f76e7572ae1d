import { LRUCache } from 'lru-cache';
import { isWellFormedApiKey } from '../domain/api-key-format.ts';
import { type ApiKeyRecord, LAST_USED_RESOLUTION_MS } from './api-keys.ts';
import { sha256Hex } from './tokens.ts';

export type ApiKeyCheck =
  | { ok: true; apiKey: ApiKeyRecord }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' };

export interface ApiKeyVerifier {
  check(presented: string | undefined): Promise<ApiKeyCheck>;
  /** Records a use of a key `check` accepted, at most once a minute per key and process. */
  recordUse(apiKey: ApiKeyRecord): Promise<void>;
  /** A key changed (revoked, expired, rescoped, created or deleted): its hash, from the change notification. */
  forget(keyHash: string): void;
  /** Whether changes are being pushed: while not, every check asks the database and nothing is kept. */
  setLive(live: boolean): void;
}

export interface ApiKeyVerifierOptions {
  lookup(keyHash: string): Promise<ApiKeyRecord | null>;
  touch(id: string): Promise<void>;
  /** How long a found key is trusted without a change notification (a safety net, not the revocation path). */
  ttlMs: number;
  /** How long an unknown hash is answered from memory, so a flood of bad keys does not reach the database. */
  negativeTtlMs: number;
  maxEntries?: number;
}

const UNKNOWN = Symbol('unknown key');
type Entry = ApiKeyRecord | typeof UNKNOWN;

/**
 * Key checks from memory: hash → key record, kept until a change notification, a reconnect of the
 * listener (notifications may have been missed) or the TTL. Malformed keys are refused by format and
 * checksum alone. Expiry is judged on this process's clock against the stored `expiresAt`.
 */
export function createApiKeyVerifier(options: ApiKeyVerifierOptions): ApiKeyVerifier {
  const cache = new LRUCache<string, Entry>({ max: options.maxEntries ?? 50_000, ttl: options.ttlMs, ttlAutopurge: false });
  const inFlight = new Map<string, Promise<Entry>>();
  let live = false;
  // Bumped by every invalidation: a lookup that started before one must not store what it read.
  let epoch = 0;

  async function load(keyHash: string): Promise<Entry> {
    const started = epoch;
    const record = (await options.lookup(keyHash)) ?? UNKNOWN;
    if (live && started === epoch) cache.set(keyHash, record, record === UNKNOWN ? { ttl: options.negativeTtlMs } : {});
    return record;
  }

  function entryFor(keyHash: string): Promise<Entry> {
    const cached = cache.get(keyHash);
    if (cached) return Promise.resolve(cached);
    let pending = inFlight.get(keyHash);
    if (!pending) {
      pending = load(keyHash).finally(() => inFlight.delete(keyHash));
      inFlight.set(keyHash, pending);
    }
    return pending;
  }

  return {
    async check(presented) {
      if (!presented) return { ok: false, reason: 'missing' };
      if (!isWellFormedApiKey(presented)) return { ok: false, reason: 'malformed' };
      const apiKey = await entryFor(sha256Hex(presented));
      if (apiKey === UNKNOWN) return { ok: false, reason: 'unknown' };
      if (apiKey.revoked) return { ok: false, reason: 'revoked' };
      if (apiKey.expiresAt !== null && apiKey.expiresAt <= Date.now()) return { ok: false, reason: 'expired' };
      return { ok: true, apiKey };
    },
    async recordUse(apiKey) {
      const now = Date.now();
      if (apiKey.lastUsedAt !== null && now - apiKey.lastUsedAt < LAST_USED_RESOLUTION_MS) return;
      // The cached record is shared by this process's requests: the first to see it stale writes for all.
      apiKey.lastUsedAt = now;
      await options.touch(apiKey.id);
    },
    forget(keyHash) {
      epoch++;
      cache.delete(keyHash);
    },
    setLive(value) {
      epoch++;
      live = value;
      cache.clear();
    },
  };
}
