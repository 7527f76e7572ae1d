import type { EnrichmentField, EnrichmentProviderId } from '../domain/enrichment.ts';
import { normalizePhone } from '../domain/phone.ts';
import { ProviderRequestError } from '../providers/errors.ts';
import type { FoundEmail, FoundPhone, FoundProfile, PersonLookup } from '../providers/enrichment/index.ts';
import { log } from '../log.ts';
import { EmailChecker } from './engine-email-checker.ts';
import type { ChainLink } from './engine-provider-chain.ts';

/** What is known about the person besides the data being looked for. */
export interface PersonFacts {
  firstName?: string;
  lastName?: string;
  title?: string;
  company?: string;
  companyDomain?: string;
}

export interface WaterfallInput {
  /** Normalized profile URL; null for a lead known only by name and company. */
  networkUrl: string | null;
  person: PersonFacts;
  fields: readonly EnrichmentField[];
}

export interface WaterfallResult {
  /** Some provider knew the person (even when none of its data could be verified). */
  found: boolean;
  /** The input facts, gaps filled from the providers in waterfall order. */
  person: PersonFacts;
  /** Verified data only: emails the prober (or a provider) confirmed, phones valid in E.164 and not flagged. */
  values: Partial<Record<EnrichmentField, string>>;
}

/** The data each provider can sell, so a provider that cannot fill any missing field is not called. */
const PROVIDER_FIELDS: Record<EnrichmentProviderId, readonly EnrichmentField[]> = {
  finder: ['workEmail'],
  pdl: ['workEmail', 'personalEmail', 'phone'],
  lusha: ['workEmail', 'personalEmail', 'phone'],
  hunter: ['workEmail', 'phone'],
};

/**
 * PDL and Lusha look people up by profile URL; Hunter's email finder by name and company domain or name; the
 * service's own finder by name and company domain (or website) only: it asks the domain's mail host.
 */
function canServe(provider: EnrichmentProviderId, networkUrl: string | null, person: PersonFacts): boolean {
  if (provider === 'finder') return Boolean(person.firstName && person.lastName && domainFromWebsite(person.companyDomain));
  if (provider === 'hunter') return Boolean(person.firstName && person.lastName && (person.companyDomain || person.company));
  return networkUrl !== null;
}

/** `https://www.acme.com/about` → `acme.com`; undefined when it is not a host name. */
export function domainFromWebsite(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const host = raw
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#:].*$/, '')
    .replace(/^www\./, '');
  return /^(?=.{1,253}$)[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host) ? host : undefined;
}

function mergeFacts(known: PersonFacts, profile: FoundProfile): PersonFacts {
  return {
    firstName: known.firstName ?? profile.firstName,
    lastName: known.lastName ?? profile.lastName,
    title: known.title ?? profile.title,
    company: known.company ?? profile.company,
    companyDomain: known.companyDomain ?? domainFromWebsite(profile.companyDomain),
  };
}

async function firstVerifiedEmail(candidates: readonly FoundEmail[], checker: EmailChecker): Promise<string | undefined> {
  for (const candidate of candidates) {
    const email = EmailChecker.normalize(candidate.email);
    if (email && (await checker.isVerified(email, candidate.verified))) return email;
  }
  return undefined;
}

function firstValidPhone(candidates: readonly FoundPhone[]): string | undefined {
  for (const candidate of candidates) {
    if (candidate.flagged) continue;
    const e164 = normalizePhone(candidate.number);
    if (e164) return e164;
  }
  return undefined;
}

async function verifiedValue(field: EnrichmentField, profile: FoundProfile, checker: EmailChecker): Promise<string | undefined> {
  switch (field) {
    case 'workEmail':
      return firstVerifiedEmail(profile.workEmails, checker);
    case 'personalEmail':
      return firstVerifiedEmail(profile.personalEmails, checker);
    case 'phone':
      return firstValidPhone(profile.phones);
  }
}

/**
 * Asks the providers in the organization's order until every requested field has a verified value.
 * Each provider's finds are verified before the next provider is asked, so an unverified find never
 * ends the search. Facts a provider returns (name, company domain) feed the lookups of the next ones.
 * A provider that refuses this particular lookup (ProviderRequestError) is passed over; every other
 * provider failure propagates (retryable ones are retried by the activity, key rejections fail the job).
 */
export async function runWaterfall(input: WaterfallInput, chain: readonly ChainLink[], checker: EmailChecker): Promise<WaterfallResult> {
  let person = { ...input.person };
  const values: Partial<Record<EnrichmentField, string>> = {};
  let found = false;
  for (const link of chain) {
    const missing = input.fields.filter((field) => values[field] === undefined);
    if (missing.length === 0) break;
    const name = link.provider.name;
    if (!missing.some((field) => PROVIDER_FIELDS[name].includes(field))) continue;
    if (!canServe(name, input.networkUrl, person)) continue;

    const lookup: PersonLookup = {
      networkUrl: input.networkUrl ?? '',
      firstName: person.firstName,
      lastName: person.lastName,
      company: person.company,
      companyDomain: person.companyDomain,
    };
    let profile: FoundProfile | null;
    try {
      profile = await link.provider.enrich(lookup, link.apiKey);
    } catch (error) {
      if (!(error instanceof ProviderRequestError)) throw error;
      log.warn('enrichment provider refused a lookup', { provider: name, error: error.message });
      continue;
    }
    if (!profile) continue;
    found = true;
    person = mergeFacts(person, profile);
    const verified = await Promise.all(missing.map((field) => verifiedValue(field, profile, checker)));
    missing.forEach((field, i) => {
      if (verified[i] !== undefined) values[field] = verified[i];
    });
  }
  return { found, person, values };
}
