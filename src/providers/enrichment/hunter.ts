import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { ProviderUnavailableError } from '../errors.ts';
import {
  providerClient,
  parseProviderBody,
  requireApiKey,
  type ProviderAnswer,
  type ProviderHttpClient,
  type ProviderRequest,
  type ProviderTuning,
} from '../http.ts';
import { displayName, text } from './names.ts';
import type { EnrichmentProvider, FoundProfile, PersonLookup, ProviderEmailResult } from './types.ts';

const PROVIDER = 'hunter';

export interface HunterOptions extends ProviderTuning {
  /** `https://api.hunter.io`. */
  baseUrl: string;
  /** Requests answered 202 ("still working, retry later") are repeated this many times in all. Default 4. */
  pendingAttempts?: number;
  /** Pause before repeating a 202. Default 3 s. */
  pendingDelayMs?: number;
}

const finderSchema = z.object({
  data: z.object({
    email: z.string().nullish(),
    score: z.number().nullish(),
    first_name: z.string().nullish(),
    last_name: z.string().nullish(),
    position: z.string().nullish(),
    company: z.string().nullish(),
    domain: z.string().nullish(),
    phone_number: z.string().nullish(),
    verification: z.object({ status: z.string().nullish() }).nullish(),
  }),
});

const verifierSchema = z.object({ data: z.object({ status: z.string() }) });

const RESULT_BY_STATUS: Record<string, ProviderEmailResult> = {
  valid: 'Valid',
  invalid: 'Invalid',
  accept_all: 'Catch-All',
};

/** Hunter v2: email finder (name + domain or company) and email verifier. */
export class HunterProvider implements EnrichmentProvider {
  readonly name = PROVIDER;
  readonly #baseUrl: string;
  readonly #pendingAttempts: number;
  readonly #pendingDelayMs: number;
  readonly #http: ProviderHttpClient;

  constructor(options: HunterOptions) {
    this.#baseUrl = options.baseUrl;
    this.#pendingAttempts = options.pendingAttempts ?? 4;
    this.#pendingDelayMs = options.pendingDelayMs ?? 3_000;
    this.#http = providerClient(PROVIDER, options, { timeoutMs: 30_000, rateLimit: { perSecond: 10, burst: 10 } });
  }

  async enrich(lookup: PersonLookup, apiKey: string): Promise<FoundProfile | null> {
    const firstName = text(lookup.firstName);
    const lastName = text(lookup.lastName);
    const domain = text(lookup.companyDomain);
    const company = text(lookup.company);
    if (!firstName || !lastName || (!domain && !company)) return null;
    const key = requireApiKey(PROVIDER, apiKey);

    const answer = await this.#sendSettled({
      method: 'GET',
      baseUrl: this.#baseUrl,
      path: '/v2/email-finder',
      query: {
        ...(domain ? { domain } : { company }),
        first_name: firstName,
        last_name: lastName,
        api_key: key,
      },
      secrets: [key],
      // 451: the person asked Hunter to stop processing their data.
      accept: [202, 451],
    });
    if (answer.status === 451) return null;
    const { data } = parseProviderBody(PROVIDER, finderSchema, answer);
    const email = text(data.email);
    if (!email) return null;
    const phone = text(data.phone_number);
    return {
      firstName: displayName(data.first_name) ?? firstName,
      lastName: displayName(data.last_name) ?? lastName,
      title: text(data.position),
      company: text(data.company) ?? company,
      companyDomain: text(data.domain) ?? domain,
      networkUrl: lookup.networkUrl,
      workEmails: [{ email, verified: data.verification?.status === 'valid' }],
      personalEmails: [],
      phones: phone ? [{ number: phone }] : [],
    };
  }

  async verifyEmail(email: string, apiKey: string): Promise<ProviderEmailResult> {
    const key = requireApiKey(PROVIDER, apiKey);
    const answer = await this.#sendSettled({
      method: 'GET',
      baseUrl: this.#baseUrl,
      path: '/v2/email-verifier',
      query: { email, api_key: key },
      secrets: [key],
      // 222: the mail server answered unexpectedly, an outcome rather than an outage; 451: opted out.
      accept: [202, 222, 451],
    });
    if (answer.status === 222 || answer.status === 451) return 'Unknown';
    const { data } = parseProviderBody(PROVIDER, verifierSchema, answer);
    return RESULT_BY_STATUS[data.status.toLowerCase()] ?? 'Unknown';
  }

  /**
   * Repeats a request Hunter answers 202 (still processing) a bounded number of times. Hunter
   * throttles with 403 ("rate limit reached"); 401 is its bad-key answer.
   */
  async #sendSettled(request: ProviderRequest): Promise<ProviderAnswer> {
    for (let attempt = 1; ; attempt++) {
      const answer = await this.#http.send({ ...request, throttleStatuses: [403] });
      if (answer.status !== 202) return answer;
      if (attempt >= this.#pendingAttempts) {
        throw new ProviderUnavailableError(
          PROVIDER,
          `${PROVIDER} was still processing the request (HTTP 202) after ${attempt} attempts`,
          202,
        );
      }
      await sleep(this.#pendingDelayMs);
    }
  }
}
