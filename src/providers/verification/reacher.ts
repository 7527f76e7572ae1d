import { z } from 'zod';
import { ProviderAuthError } from '../errors.ts';
import { mapConcurrent } from '../../concurrency.ts';
import { providerClient, type ProviderTuning, type ProviderHttpClient } from '../http.ts';
import type { EmailVerificationProvider, VerificationVerdict } from './types.ts';

const PROVIDER = 'reacher';

export interface ReacherOptions extends ProviderTuning {
  /** Self-hosted backend or the SaaS (`https://api.reacher.email`). */
  baseUrl?: string;
  apiKey?: string;
  /** Requests in flight for one `verify` call. Default 4. */
  concurrency?: number;
}

const checkSchema = z.object({
  input: z.string().optional(),
  is_reachable: z.string(),
  // On an SMTP failure Reacher puts `{ error: {...} }` here instead of the flags.
  smtp: z.object({ is_catch_all: z.boolean().optional() }).nullish(),
});

/** Reacher: `POST /v1/check_email` per address, a few at a time (it probes SMTP itself, so each call is slow). */
export class ReacherProvider implements EmailVerificationProvider {
  readonly name = PROVIDER;
  readonly maxBatch = 25;
  readonly #baseUrl: string | undefined;
  readonly #apiKey: string | undefined;
  readonly #concurrency: number;
  readonly #http: ProviderHttpClient;

  constructor(options: ReacherOptions) {
    this.#baseUrl = options.baseUrl;
    this.#apiKey = options.apiKey;
    this.#concurrency = options.concurrency ?? 4;
    this.#http = providerClient(PROVIDER, options, { timeoutMs: 90_000, rateLimit: { perSecond: 10, burst: 10 } });
  }

  async verify(emails: string[]): Promise<VerificationVerdict[]> {
    if (emails.length === 0) return [];
    const baseUrl = this.#baseUrl;
    if (!baseUrl) throw new ProviderAuthError(PROVIDER, `${PROVIDER} has no base URL configured`);
    return mapConcurrent(emails, this.#concurrency, (email) => this.#check(baseUrl, email));
  }

  async #check(baseUrl: string, email: string): Promise<VerificationVerdict> {
    const body = await this.#http.sendJson(
      {
        method: 'POST',
        baseUrl,
        path: '/v1/check_email',
        json: { to_email: email },
        headers: this.#authHeaders(),
        secrets: [this.#apiKey],
      },
      checkSchema,
    );
    const status = body.is_reachable.toLowerCase();
    const catchAll = body.smtp?.is_catch_all === true;
    switch (status) {
      case 'safe':
        return { email, result: 'Valid', reason: status };
      case 'invalid':
        return { email, result: 'Invalid', reason: status };
      case 'risky':
        return catchAll
          ? { email, result: 'Catch-All', reason: 'risky/catch_all' }
          : { email, result: 'Valid', reason: status };
      default:
        return { email, result: 'Unknown', reason: status };
    }
  }

  // The self-hosted backend checks `x-reacher-secret`, the SaaS checks `Authorization`; one key
  // setting serves both deployments.
  #authHeaders(): Record<string, string> {
    return this.#apiKey ? { 'x-reacher-secret': this.#apiKey, authorization: this.#apiKey } : {};
  }
}
