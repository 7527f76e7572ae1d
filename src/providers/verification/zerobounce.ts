import { z } from 'zod';
import { ProviderAuthError, ProviderUnavailableError } from '../errors.ts';
import { providerClient, parseProviderBody, requireApiKey, type ProviderTuning, type ProviderHttpClient } from '../http.ts';
import { providerDetail } from '../redact.ts';
import type { EmailResult, EmailVerificationProvider, VerificationVerdict } from './types.ts';

const PROVIDER = 'zerobounce';
const MAX_BATCH = 200;

export interface ZeroBounceOptions extends ProviderTuning {
  apiKey?: string;
  /** `https://api.zerobounce.net`: single validation. */
  baseUrl: string;
  /** `https://bulkapi.zerobounce.net`: batch validation. */
  bulkBaseUrl: string;
  /** A batch of 200 takes the provider much longer than one address. Default 120 s. */
  batchTimeoutMs?: number;
  batchRateLimit?: ProviderTuning['rateLimit'];
}

const verdictSchema = z.object({
  address: z.string(),
  status: z.string(),
  sub_status: z.string().nullish(),
});

// HTTP 200 either way: a verdict, or `{ "error": "..." }`.
const validateSchema = z.union([verdictSchema, z.object({ error: z.string() })]);

const batchSchema = z.object({
  email_batch: z.array(verdictSchema),
  errors: z.array(z.object({ error: z.string(), email_address: z.string() })).nullish(),
});

const RESULT_BY_STATUS: Record<string, EmailResult> = {
  valid: 'Valid',
  invalid: 'Invalid',
  'catch-all': 'Catch-All',
  unknown: 'Unknown',
  // Deliverable perhaps, but unsafe to send to.
  spamtrap: 'Invalid',
  abuse: 'Invalid',
  do_not_mail: 'Invalid',
};

/** ZeroBounce v2: one address through `/v2/validate`, more through `/v2/validatebatch` (≤ 200 per request). */
export class ZeroBounceProvider implements EmailVerificationProvider {
  readonly name = PROVIDER;
  readonly maxBatch = MAX_BATCH;
  readonly #apiKey: string | undefined;
  readonly #baseUrl: string;
  readonly #bulkBaseUrl: string;
  readonly #batchTimeoutMs: number;
  readonly #single: ProviderHttpClient;
  readonly #bulk: ProviderHttpClient;

  constructor(options: ZeroBounceOptions) {
    this.#apiKey = options.apiKey;
    this.#baseUrl = options.baseUrl;
    this.#bulkBaseUrl = options.bulkBaseUrl;
    this.#batchTimeoutMs = options.batchTimeoutMs ?? 120_000;
    this.#single = providerClient(PROVIDER, options, { timeoutMs: 30_000, rateLimit: { perSecond: 50, burst: 10 } });
    // The batch endpoint allows 5 requests per minute.
    this.#bulk = providerClient(
      PROVIDER,
      { timeoutMs: this.#batchTimeoutMs, retry: options.retry, rateLimit: options.batchRateLimit },
      { timeoutMs: this.#batchTimeoutMs, rateLimit: { perSecond: 5 / 60, burst: 5 } },
    );
  }

  async verify(emails: string[]): Promise<VerificationVerdict[]> {
    if (emails.length === 0) return [];
    const apiKey = requireApiKey(PROVIDER, this.#apiKey);
    const [only] = emails;
    if (emails.length === 1 && only !== undefined) return [await this.#validateOne(only, apiKey)];
    const verdicts: VerificationVerdict[] = [];
    for (let start = 0; start < emails.length; start += MAX_BATCH) {
      verdicts.push(...(await this.#validateBatch(emails.slice(start, start + MAX_BATCH), apiKey)));
    }
    return verdicts;
  }

  async #validateOne(email: string, apiKey: string): Promise<VerificationVerdict> {
    const answer = await this.#single.send({
      method: 'GET',
      baseUrl: this.#baseUrl,
      path: '/v2/validate',
      query: { api_key: apiKey, email, ip_address: '' },
      secrets: [apiKey],
    });
    const body = parseProviderBody(PROVIDER, validateSchema, answer);
    if ('error' in body) {
      const detail = providerDetail(body.error, [apiKey]);
      if (isKeyProblem(body.error))
        throw new ProviderAuthError(PROVIDER, `${PROVIDER} rejected the API key: ${detail}`);
      return { email, result: 'Unknown', reason: `error: ${detail}` };
    }
    return toVerdict(email, body);
  }

  async #validateBatch(emails: string[], apiKey: string): Promise<VerificationVerdict[]> {
    const answer = await this.#bulk.send({
      method: 'POST',
      baseUrl: this.#bulkBaseUrl,
      path: '/v2/validatebatch',
      json: {
        api_key: apiKey,
        email_batch: emails.map((email) => ({ email_address: email, ip_address: null })),
      },
      secrets: [apiKey],
    });
    const body = parseProviderBody(PROVIDER, batchSchema, answer);
    const errors = body.errors ?? [];

    const wholeCall = errors.find((entry) => entry.email_address.toLowerCase() === 'all');
    if (wholeCall) {
      const detail = providerDetail(wholeCall.error, [apiKey]);
      if (isKeyProblem(wholeCall.error)) {
        throw new ProviderAuthError(PROVIDER, `${PROVIDER} rejected the API key: ${detail}`);
      }
      throw new ProviderUnavailableError(PROVIDER, `${PROVIDER} rejected the batch: ${detail}`);
    }

    const verdicts = new Map(body.email_batch.map((entry) => [entry.address.toLowerCase(), entry]));
    const failures = new Map(errors.map((entry) => [entry.email_address.toLowerCase(), entry.error]));
    return emails.map((email) => {
      const key = email.toLowerCase();
      const verdict = verdicts.get(key);
      if (verdict) return toVerdict(email, verdict);
      const failure = failures.get(key);
      const reason =
        failure === undefined ? 'error: no result returned' : `error: ${providerDetail(failure, [apiKey])}`;
      return { email, result: 'Unknown', reason };
    });
  }
}

function toVerdict(email: string, entry: z.infer<typeof verdictSchema>): VerificationVerdict {
  const status = entry.status.toLowerCase();
  return {
    email,
    result: RESULT_BY_STATUS[status] ?? 'Unknown',
    reason: entry.sub_status ? `${status}/${entry.sub_status}` : status,
  };
}

// ZeroBounce answers a bad key (or an account without credits) with prose such as
// "Invalid API key or your account ran out of credits".
function isKeyProblem(error: string): boolean {
  return /api[\s_-]?key|credits/i.test(error);
}
