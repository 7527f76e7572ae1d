import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import { log } from '../log.ts';
import { directoryLookups } from '../metrics.ts';
import { SharedPacer } from './pacer.ts';
import { claimTenant, readTenant, releaseTenant, storeTenant } from './repository.ts';

/** What Microsoft's directory said of one address (CONTRACT §12). */
export type DirectoryAnswer =
  /** IfExistsResult 0, 5 or 6 with ThrottleStatus 0. */
  | { kind: 'exists'; ifExistsResult: number }
  /** IfExistsResult 1: no such user — though aliases, groups and passwordless users answer it too. */
  | { kind: 'absent'; ifExistsResult: 1 }
  /** Any other value, ThrottleStatus ≠ 0, another HTTP status or body, a timeout, a network error. */
  | { kind: 'no_verdict'; reason: string };

/** Whether a domain's answers can be used: only a tenant that says "absent" for an address that cannot exist. */
export type TenantVerdict = 'honest' | 'accepts_all' | 'unknown';

/** The one path the service calls on the sign-in host: the user lookup the sign-in page makes when a user types an address. */
export const GET_CREDENTIAL_TYPE_PATH = '/common/GetCredentialType';
/** IfExistsResult values that mean "a user with this name exists" (0: in this tenant; 5 and 6: in another identity provider / both). */
const EXISTS = new Set([0, 5, 6]);
/** A retry after no verdict counts as this many requests of the shared pace: retries go at a lower rate. */
export const SLOW_SLOTS = 2;
/** A canary's verdict is reused this long, by every worker. */
export const TENANT_TTL_MS = 24 * 3_600_000;
const DEFAULT_TIMEOUT_MS = 10_000;
/** How long one process may hold a domain's canary before another takes over (its pace wait and request included). */
const CANARY_CLAIM_MS = 120_000;
/** How often a process waiting for another's canary looks for its verdict. */
const CANARY_POLL_MS = 200;
const MAX_ANSWER_BYTES = 65_536;
/** The pace row every worker shares. */
const PACE = 'microsoft';

export interface MicrosoftDirectoryOptions {
  /** MS_LOGIN_BASE_URL. */
  baseUrl: string;
  /** A pool of its own (pace reservations and canary verdicts). */
  pool: Pool;
  /** MS_DIRECTORY_RATE: requests per second, all worker processes on the database together. */
  ratePerSecond: number;
  timeoutMs?: number;
}

/**
 * The body Microsoft's own sign-in page posts when a user types an address (the page's flow token and request
 * context left empty, as before any sign-in starts). Nothing else is ever sent: no password, no sign-in.
 */
export function credentialTypeRequest(username: string) {
  return {
    Username: username,
    isOtherIdpSupported: true,
    checkPhones: false,
    isRemoteNGCSupported: true,
    isCookieBannerShown: false,
    isFidoSupported: true,
    originalRequest: '',
    country: 'US',
    forceotclogin: false,
    isExternalFederationDisallowed: false,
    isRemoteConnectSupported: false,
    federationFlags: 0,
    isSignup: false,
    flowToken: '',
    isAccessPassSupported: true,
  };
}

/** Reads a GetCredentialType answer: the decision of CONTRACT §12 and nothing else. */
export function readCredentialType(status: number, body: unknown): DirectoryAnswer {
  if (status !== 200) return { kind: 'no_verdict', reason: `HTTP ${status}` };
  if (typeof body !== 'object' || body === null) return { kind: 'no_verdict', reason: 'the answer is not a JSON object' };
  const { IfExistsResult: result, ThrottleStatus: throttle } = body as Record<string, unknown>;
  if (!Number.isInteger(result)) return { kind: 'no_verdict', reason: 'no IfExistsResult in the answer' };
  // A throttled answer's IfExistsResult is not the directory's word: Microsoft answers it for any address.
  if (throttle !== 0) return { kind: 'no_verdict', reason: `throttled (ThrottleStatus ${JSON.stringify(throttle ?? null)})` };
  if (result === 1) return { kind: 'absent', ifExistsResult: 1 };
  if (EXISTS.has(result as number)) return { kind: 'exists', ifExistsResult: result as number };
  return { kind: 'no_verdict', reason: `IfExistsResult ${String(result)}` };
}

/** One JSON POST; the answer's status and text. */
function postJson(url: URL, agent: http.Agent, payload: string, signal: AbortSignal): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', accept: 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    const request = (url.protocol === 'https:' ? https : http).request(url, { method: 'POST', agent, headers, signal }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        // The real answer is about 1 kB: anything this large is not one.
        if (size > MAX_ANSWER_BYTES) request.destroy(new Error(`an answer over ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
      response.on('close', () => {
        if (!response.complete) reject(new Error('the answer was cut short'));
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
}

/**
 * Microsoft's directory as the sign-in page sees it (CONTRACT §12): one unauthenticated POST per address to
 * GetCredentialType, paced across every worker process, and per domain a cached canary saying whether the
 * tenant's answers mean anything.
 */
export class MicrosoftDirectory {
  readonly #url: URL;
  readonly #agent: http.Agent;
  readonly #pool: Pool;
  readonly #pacer: SharedPacer;
  readonly #timeoutMs: number;

  constructor(options: MicrosoftDirectoryOptions) {
    this.#url = new URL(`${options.baseUrl.replace(/\/+$/, '')}${GET_CREDENTIAL_TYPE_PATH}`);
    // Node's own HTTP client (its parser is already loaded): a client that compiles its parser on the first
    // request sends that request late, and a late request crowds the next slots' window at Microsoft.
    this.#agent = this.#url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
    this.#pool = options.pool;
    this.#pacer = new SharedPacer(options.pool, PACE, options.ratePerSecond);
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * One address (lower-cased), once the shared pace allows. `slow`: a retry after a no-verdict, counted as
   * SLOW_SLOTS requests. Rejects with the signal's reason once `signal` aborts (waiting or asking), and with the
   * database's error when the pace cannot be reserved (nothing is sent then: the activity's retry asks again).
   */
  async lookup(email: string, options: { slow?: boolean; signal?: AbortSignal } = {}): Promise<DirectoryAnswer> {
    const { signal } = options;
    const username = email.trim().toLowerCase();
    await this.#pacer.take(options.slow ? SLOW_SLOTS : 1, signal);
    const answer = await this.#ask(username, signal);
    directoryLookups.inc({ answer: answer.kind });
    if (answer.kind === 'no_verdict') log.debug('Microsoft directory: no verdict', { reason: answer.reason });
    return answer;
  }

  async #ask(username: string, signal: AbortSignal | undefined): Promise<DirectoryAnswer> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    try {
      const { status, text } = await postJson(this.#url, this.#agent, JSON.stringify(credentialTypeRequest(username)), signal ? AbortSignal.any([signal, timeout]) : timeout);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { kind: 'no_verdict', reason: status === 200 ? 'the answer is not JSON' : `HTTP ${status}` };
      }
      return readCredentialType(status, body);
    } catch (error) {
      signal?.throwIfAborted();
      if (timeout.aborted) return { kind: 'no_verdict', reason: `no answer within ${this.#timeoutMs} ms` };
      return { kind: 'no_verdict', reason: `network error: ${error instanceof Error ? error.message : String(error)}` };
    }
  }

  /**
   * Whether the domain's tenant answers honestly: a random address that cannot exist is asked once per domain
   * (by one worker while the others wait for its verdict) and the verdict is kept TENANT_TTL_MS. A canary with
   * no verdict is not kept: 'unknown', asked again by a later call.
   */
  async tenant(domain: string, options: { signal?: AbortSignal } = {}): Promise<TenantVerdict> {
    const { signal } = options;
    const name = domain.trim().toLowerCase();
    signal?.throwIfAborted();
    if (await claimTenant(this.#pool, name, TENANT_TTL_MS, CANARY_CLAIM_MS)) return this.#askCanary(name, signal);
    // Not claimed: a fresh verdict is there, or another process is asking.
    for (;;) {
      const state = await readTenant(this.#pool, name, TENANT_TTL_MS);
      if (state.verdict) return state.verdict;
      // Its canary ended without a verdict (or its claim ran out): unknown for now, as for the asker.
      if (!state.asking) return 'unknown';
      await sleep(CANARY_POLL_MS, undefined, signal ? { signal } : {}).catch((error: unknown) => {
        signal?.throwIfAborted();
        throw error;
      });
    }
  }

  async #askCanary(domain: string, signal: AbortSignal | undefined): Promise<TenantVerdict> {
    // 24 random hex characters after a letter: no person's address, and not guessable from one canary to the next.
    const canary = `x${randomBytes(12).toString('hex')}@${domain}`;
    let answer: DirectoryAnswer;
    try {
      answer = await this.lookup(canary, signal ? { signal } : {});
    } catch (error) {
      await releaseTenant(this.#pool, domain).catch(() => undefined);
      throw error;
    }
    if (answer.kind === 'no_verdict') {
      await releaseTenant(this.#pool, domain);
      return 'unknown';
    }
    const verdict = answer.kind === 'absent' ? 'honest' : 'accepts_all';
    await storeTenant(this.#pool, domain, verdict);
    return verdict;
  }
}
