import { setTimeout as sleep } from 'node:timers/promises';
import { providerCalls } from '../metrics.ts';
import type { z } from 'zod';
import {
  ProviderAuthError,
  ProviderRateLimitError,
  ProviderRequestError,
  ProviderResponseError,
  ProviderUnavailableError,
} from './errors.ts';
import { providerDetail } from './redact.ts';
import { TokenBucket, type RateLimitOptions } from './rate-limit.ts';

export interface RetryPolicy {
  /** Attempts per call, the first included. */
  maxAttempts: number;
  /** Backoff before the second attempt; doubles each time, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * Longest `Retry-After` waited for inside the call. A longer one fails the call at once with
   * `ProviderRateLimitError` so the activity (Temporal) schedules the retry instead of holding a slot.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

/** Knobs every adapter accepts; the defaults suit production, tests shrink the delays. */
export interface ProviderTuning {
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  rateLimit?: RateLimitOptions;
}

export interface ProviderHttpOptions {
  provider: string;
  timeoutMs: number;
  retry?: Partial<RetryPolicy>;
  rateLimit: RateLimitOptions;
}

/**
 * An adapter's client: the provider's documented limits (`defaults`) unless the deployment tunes them. The one way
 * every adapter builds its client.
 */
export function providerClient(provider: string, tuning: ProviderTuning, defaults: { timeoutMs: number; rateLimit: RateLimitOptions }): ProviderHttpClient {
  return new ProviderHttpClient({
    provider,
    timeoutMs: tuning.timeoutMs ?? defaults.timeoutMs,
    retry: tuning.retry,
    rateLimit: tuning.rateLimit ?? defaults.rateLimit,
  });
}

export interface ProviderRequest {
  method: 'GET' | 'POST';
  baseUrl: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
  json?: unknown;
  /** Values that must never appear in an error text (the API key of this call). */
  secrets?: readonly (string | undefined)[];
  /** Non-2xx statuses the adapter interprets itself (PDL 404 = no match, ...). */
  accept?: readonly number[];
  /** Statuses meaning "slow down", handled like 429 (Hunter throttles with 403). */
  throttleStatuses?: readonly number[];
  timeoutMs?: number;
}

export interface ProviderAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: unknown;
}

/**
 * The one HTTP client of every adapter: rate limit, timeout, bounded retry with backoff for network
 * errors, 5xx and 429, then typed errors. One instance per adapter instance (it owns the bucket).
 */
export class ProviderHttpClient {
  readonly provider: string;
  readonly #timeoutMs: number;
  readonly #retry: RetryPolicy;
  readonly #bucket: TokenBucket;

  constructor(options: ProviderHttpOptions) {
    this.provider = options.provider;
    this.#timeoutMs = options.timeoutMs;
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.#bucket = new TokenBucket(options.rateLimit);
  }

  /** Sends the request; answers with a 2xx or an accepted status, else throws a ProviderError. */
  async send(request: ProviderRequest): Promise<ProviderAnswer> {
    const { provider } = this;
    const secrets = request.secrets ?? [];
    const init = buildInit(request);
    const url = buildUrl(request);
    const timeoutMs = request.timeoutMs ?? this.#timeoutMs;

    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.#retry.maxAttempts;
      await this.#bucket.take();

      let response: Response;
      let text: string;
      try {
        response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
        text = await response.text();
      } catch (error) {
        providerCalls.inc({ provider, outcome: 'network_error' });
        if (last) throw new ProviderUnavailableError(provider, networkFailure(provider, error, timeoutMs));
        await sleep(this.#backoff(attempt));
        continue;
      }

      const { status } = response;
      if ((status >= 200 && status < 300) || request.accept?.includes(status)) {
        providerCalls.inc({ provider, outcome: 'ok' });
        return { status, headers: response.headers, body: parseJsonText(provider, status, text) };
      }

      const detail = errorDetail(text, secrets);
      if (status === 429 || request.throttleStatuses?.includes(status)) {
        providerCalls.inc({ provider, outcome: 'rate_limited' });
        const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
        const message = `${provider} rate limit hit (HTTP ${status})${detail}`;
        if (retryAfterMs !== undefined && retryAfterMs > this.#retry.maxRetryAfterMs) {
          throw new ProviderRateLimitError(provider, message, retryAfterMs, status);
        }
        const waitMs = retryAfterMs ?? this.#backoff(attempt);
        if (last) throw new ProviderRateLimitError(provider, message, waitMs, status);
        this.#bucket.pause(waitMs);
        await sleep(waitMs);
        continue;
      }
      if (status >= 500 || status === 408) {
        providerCalls.inc({ provider, outcome: 'server_error' });
        if (last) {
          throw new ProviderUnavailableError(
            provider,
            `${provider} answered HTTP ${status}${detail}`,
            status,
          );
        }
        await sleep(this.#backoff(attempt));
        continue;
      }
      providerCalls.inc({ provider, outcome: 'refused' });
      throw refusal(provider, status, detail);
    }
  }

  /** `send` for a 2xx answer whose body must match `schema`. */
  async sendJson<T>(request: ProviderRequest, schema: z.ZodType<T>): Promise<T> {
    const answer = await this.send(request);
    return parseProviderBody(this.provider, schema, answer);
  }

  #backoff(attempt: number): number {
    const ceiling = Math.min(this.#retry.maxDelayMs, this.#retry.baseDelayMs * 2 ** (attempt - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }
}

/** Validates an answer's body against its documented shape. */
export function parseProviderBody<T>(provider: string, schema: z.ZodType<T>, answer: ProviderAnswer): T {
  const parsed = schema.safeParse(answer.body);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
  throw new ProviderResponseError(
    provider,
    `${provider} answered HTTP ${answer.status} with an unexpected body (${issues})`,
    answer.status,
  );
}

/** The key of a call, or a clear non-retryable failure when none is configured. */
export function requireApiKey(provider: string, apiKey: string | undefined): string {
  if (!apiKey) throw new ProviderAuthError(provider, `${provider} has no API key configured`);
  return apiKey;
}

/** `Retry-After` as milliseconds from now: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP-date form starts with the day name; Date.parse alone would read "-5" or "1.5" as dates.
  if (!/^[A-Za-z]{3}/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function buildUrl(request: ProviderRequest): URL {
  const base = request.baseUrl.endsWith('/') ? request.baseUrl : `${request.baseUrl}/`;
  const url = new URL(request.path.replace(/^\/+/, ''), base);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  return url;
}

function buildInit(request: ProviderRequest): RequestInit {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.json === undefined) return { method: request.method, headers };
  headers['content-type'] = 'application/json';
  return { method: request.method, headers, body: JSON.stringify(request.json) };
}

function parseJsonText(provider: string, status: number, text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderResponseError(
      provider,
      `${provider} answered HTTP ${status} with a body that is not JSON`,
      status,
    );
  }
}

function refusal(provider: string, status: number, detail: string): Error {
  if (status === 401 || status === 403) {
    return new ProviderAuthError(
      provider,
      `${provider} rejected the API key (HTTP ${status})${detail}`,
      status,
    );
  }
  if (status === 402) {
    return new ProviderAuthError(
      provider,
      `${provider} refused the request: payment required (HTTP 402)${detail}`,
      status,
    );
  }
  return new ProviderRequestError(
    provider,
    `${provider} refused the request (HTTP ${status})${detail}`,
    status,
  );
}

function networkFailure(provider: string, error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && error.name === 'TimeoutError') {
    return `${provider} did not answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${provider} is unreachable${code}`;
}

/** The provider's own words from an error body, as `: <text>`, or '' when it has none. */
function errorDetail(text: string, secrets: readonly (string | undefined)[]): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return '';
  }
  const found = findMessage(body);
  return found ? `: ${providerDetail(found, secrets)}` : '';
}

function findMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body || undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  if (Array.isArray(body)) return findMessage(body[0]);
  const record = body as Record<string, unknown>;
  for (const field of ['message', 'detail', 'details', 'error', 'errors']) {
    const found = findMessage(record[field]);
    if (found) return found;
  }
  return undefined;
}
