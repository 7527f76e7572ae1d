import { z } from 'zod';
import { normalizeProfileUrl } from '../../domain/profile-url.ts';
import { providerClient, parseProviderBody, requireApiKey, type ProviderTuning, type ProviderHttpClient } from '../http.ts';
import { displayName, text } from './names.ts';
import type { EnrichmentProvider, FoundProfile, PersonLookup } from './types.ts';

const PROVIDER = 'pdl';

export interface PdlOptions extends ProviderTuning {
  /** `https://api.peopledatalabs.com`. */
  baseUrl: string;
}

// Plans without access to a contact field get `true`/`false` (data exists or not) instead of the value.
const contactValue = z.union([z.string(), z.boolean()]).nullish();
const contactList = z.union([z.array(z.string()), z.boolean()]).nullish();

const enrichSchema = z.object({
  status: z.number().optional(),
  likelihood: z.number().optional(),
  data: z.object({
    first_name: z.string().nullish(),
    last_name: z.string().nullish(),
    job_title: z.string().nullish(),
    job_company_name: z.string().nullish(),
    job_company_website: z.string().nullish(),
    work_email: contactValue,
    personal_emails: contactList,
    mobile_phone: contactValue,
    phone_numbers: contactList,
    linkedin_url: z.string().nullish(),
  }),
});

/** People Data Labs person enrichment by profile URL; 404 means no match. */
export class PdlProvider implements EnrichmentProvider {
  readonly name = PROVIDER;
  readonly #baseUrl: string;
  readonly #http: ProviderHttpClient;

  constructor(options: PdlOptions) {
    this.#baseUrl = options.baseUrl;
    this.#http = providerClient(PROVIDER, options, { timeoutMs: 20_000, rateLimit: { perSecond: 100 / 60, burst: 10 } });
  }

  async enrich(lookup: PersonLookup, apiKey: string): Promise<FoundProfile | null> {
    const key = requireApiKey(PROVIDER, apiKey);
    const answer = await this.#http.send({
      method: 'GET',
      baseUrl: this.#baseUrl,
      path: '/v5/person/enrich',
      query: { profile: lookup.networkUrl },
      headers: { 'x-api-key': key },
      secrets: [key],
      accept: [404],
    });
    if (answer.status === 404) return null;
    const { data } = parseProviderBody(PROVIDER, enrichSchema, answer);

    const workEmail = stringValue(data.work_email);
    const phones = unique([stringValue(data.mobile_phone), ...stringList(data.phone_numbers)]);
    return {
      firstName: displayName(data.first_name),
      lastName: displayName(data.last_name),
      title: text(data.job_title),
      company: text(data.job_company_name),
      companyDomain: text(data.job_company_website),
      networkUrl: (data.linkedin_url && normalizeProfileUrl(data.linkedin_url)) || lookup.networkUrl,
      workEmails: workEmail ? [{ email: workEmail }] : [],
      personalEmails: unique(stringList(data.personal_emails)).map((email) => ({ email })),
      phones: phones.map((number) => ({ number })),
    };
  }
}

function stringValue(value: string | boolean | null | undefined): string | undefined {
  return typeof value === 'string' ? text(value) : undefined;
}

function stringList(value: string[] | boolean | null | undefined): string[] {
  return Array.isArray(value) ? value : [];
}

function unique(values: (string | undefined)[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of values) {
    const clean = text(value);
    if (clean && !seen.has(clean.toLowerCase())) {
      seen.add(clean.toLowerCase());
      out.push(clean);
    }
  }
  return out;
}
