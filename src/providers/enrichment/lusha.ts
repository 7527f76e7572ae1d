import { z } from 'zod';
import {
  ProviderAuthError,
  ProviderRateLimitError,
  ProviderRequestError,
  ProviderUnavailableError,
} from '../errors.ts';
import { providerClient, parseProviderBody, requireApiKey, type ProviderTuning, type ProviderHttpClient } from '../http.ts';
import { providerDetail } from '../redact.ts';
import { normalizeProfileUrl } from '../../domain/profile-url.ts';
import { displayName, text } from './names.ts';
import type { EnrichmentProvider, FoundEmail, FoundProfile, PersonLookup } from './types.ts';

const PROVIDER = 'lusha';
/** Lusha's in-body rate-limit errors carry no delay; its windows are per minute. */
const IN_BODY_RATE_LIMIT_RETRY_MS = 60_000;

export interface LushaOptions extends ProviderTuning {
  /** `https://api.lusha.com`. */
  baseUrl: string;
}

const contactErrorSchema = z.object({
  code: z.union([z.number(), z.string()]).nullish(),
  name: z.string().nullish(),
  message: z.string().nullish(),
});

const personSchema = z.object({
  contact: z.object({
    error: contactErrorSchema.nullish(),
    isCreditCharged: z.boolean().nullish(),
    data: z
      .object({
        firstName: z.string().nullish(),
        lastName: z.string().nullish(),
        jobTitle: z.union([z.string(), z.object({ title: z.string().nullish() })]).nullish(),
        company: z
          .object({ name: z.string().nullish(), domain: z.string().nullish(), fqdn: z.string().nullish() })
          .nullish(),
        emailAddresses: z
          .array(
            z.object({
              email: z.string(),
              emailType: z.string().nullish(),
              emailConfidence: z.string().nullish(),
            }),
          )
          .nullish(),
        phoneNumbers: z
          .array(
            z.object({
              number: z.string(),
              phoneType: z.string().nullish(),
              doNotCall: z.boolean().nullish(),
            }),
          )
          .nullish(),
        socialLinks: z.object({ linkedin: z.string().nullish() }).nullish(),
      })
      .nullish(),
  }),
});

/** Lusha person API v2 by profile URL; failures arrive as HTTP 200 with `contact.error`. */
export class LushaProvider implements EnrichmentProvider {
  readonly name = PROVIDER;
  readonly #baseUrl: string;
  readonly #http: ProviderHttpClient;

  constructor(options: LushaOptions) {
    this.#baseUrl = options.baseUrl;
    this.#http = providerClient(PROVIDER, options, { timeoutMs: 20_000, rateLimit: { perSecond: 5, burst: 5 } });
  }

  async enrich(lookup: PersonLookup, apiKey: string): Promise<FoundProfile | null> {
    const key = requireApiKey(PROVIDER, apiKey);
    const answer = await this.#http.send({
      method: 'GET',
      baseUrl: this.#baseUrl,
      path: '/v2/person',
      query: { linkedinUrl: lookup.networkUrl },
      headers: { api_key: key },
      secrets: [key],
      // 451: withheld under GDPR, i.e. no usable match.
      accept: [451],
    });
    if (answer.status === 451) return null;
    const { contact } = parseProviderBody(PROVIDER, personSchema, answer);
    if (contact.error) return failOrMiss(contact.error, key);
    const data = contact.data;
    if (!data) return null;

    const workEmails: FoundEmail[] = [];
    const personalEmails: FoundEmail[] = [];
    for (const entry of data.emailAddresses ?? []) {
      // Lusha types addresses `work`, `personal` or `other`; only `personal` is known not to be a work address.
      (entry.emailType?.toLowerCase() === 'personal' ? personalEmails : workEmails).push({
        email: entry.email,
      });
    }
    const jobTitle = typeof data.jobTitle === 'string' ? data.jobTitle : data.jobTitle?.title;
    const linkedin = data.socialLinks?.linkedin;
    return {
      firstName: displayName(data.firstName),
      lastName: displayName(data.lastName),
      title: text(jobTitle),
      company: text(data.company?.name),
      companyDomain: text(data.company?.domain) ?? text(data.company?.fqdn),
      networkUrl: (linkedin && normalizeProfileUrl(linkedin)) || lookup.networkUrl,
      workEmails,
      personalEmails,
      phones: (data.phoneNumbers ?? []).map((phone) => ({
        number: phone.number,
        flagged: phone.doNotCall === true,
      })),
    };
  }
}

/** Reads `contact.error`: a miss gives null, anything else throws the matching ProviderError. */
function failOrMiss(error: z.infer<typeof contactErrorSchema>, apiKey: string): null {
  const code = Number(error.code);
  const words = `${error.name ?? ''} ${error.message ?? ''}`;
  const detail = providerDetail(error.message || error.name || `code ${String(error.code)}`, [apiKey]);
  if (code === 401 || code === 403 || /unauthori[sz]ed|forbidden|api[\s_-]?key/i.test(words)) {
    throw new ProviderAuthError(PROVIDER, `${PROVIDER} rejected the API key: ${detail}`);
  }
  if (code === 402 || /payment/i.test(words)) {
    throw new ProviderAuthError(PROVIDER, `${PROVIDER} refused the request: payment required: ${detail}`);
  }
  if (code === 404 || code === 451 || /not[\s_-]?found|gdpr/i.test(words)) return null;
  if (code === 429 || /rate[\s_-]?limit|quota/i.test(words)) {
    throw new ProviderRateLimitError(
      PROVIDER,
      `${PROVIDER} rate limit hit: ${detail}`,
      IN_BODY_RATE_LIMIT_RETRY_MS,
    );
  }
  if (code >= 500) throw new ProviderUnavailableError(PROVIDER, `${PROVIDER} failed: ${detail}`);
  throw new ProviderRequestError(PROVIDER, `${PROVIDER} refused the request: ${detail}`);
}
