import { randomUUID } from 'node:crypto';
import { companyDomainOf } from '../domain/company-domain.ts';
import type { EnrichmentProvider, FoundProfile, PersonLookup } from '../providers/enrichment/index.ts';
import { findEmail, type FinderDeps, learnFoundTemplate } from './engine.ts';

/**
 * The email finder as the waterfall's first provider (CONTRACT §14): a work email for a person with both names and a
 * company domain (or website), only when its mail host (or the Microsoft directory) says `Valid` — a `Catch-All`
 * guess is not a verified find, so the next providers are asked. It runs inside the enrichment activity: a
 * greylisting host is asked again within it (SMTP_GREYLIST_DELAY_MS apart), not waited out for minutes. The
 * waterfall charges what it returns as any provider's verified work email.
 */
export class FinderProvider implements EnrichmentProvider {
  readonly name = 'finder' as const;
  readonly #deps: FinderDeps;

  constructor(deps: FinderDeps) {
    this.#deps = deps;
  }

  async enrich(lookup: PersonLookup): Promise<FoundProfile | null> {
    const domain = companyDomainOf(lookup.companyDomain?.toLowerCase());
    if (!lookup.firstName || !lookup.lastName || !domain) return null;
    const step = await findEmail(this.#deps, { firstName: lookup.firstName, lastName: lookup.lastName, domain, seed: randomUUID() });
    if (step.kind !== 'done' || step.found?.result !== 'Valid') return null;
    await learnFoundTemplate(this.#deps.orm.em.fork(), domain, step);
    return { workEmails: [{ email: step.found.email, verified: true }], personalEmails: [], phones: [] };
  }
}
