import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../db/kysely.ts';
import { fillEmailsOfProfile } from '../db/repos/leads.ts';
import { findFreshProfiles, mergeCacheEntry, saveCacheEntries } from './repository-profiles.ts';
import { ENRICHMENT_FIELDS } from '../domain/enrichment.ts';
import { deliverFinds, lockOrganization } from './engine-settle.ts';
import { prepareWaterfall, type EnrichmentClients } from './clients.ts';
import { runWaterfall, type PersonFacts } from './engine-waterfall.ts';
import type { ProfileLookup, SingleEnrichmentInput, SingleEnrichmentResult } from './messages.ts';

/**
 * Reads the cache and runs the waterfall for the fields it does not settle. Calls no provider when a
 * fresh cache entry settles every field. Charges nothing: that is `settleProfile`'s job.
 */
export async function lookupProfile(em: EntityManager, clients: EnrichmentClients, input: SingleEnrichmentInput): Promise<ProfileLookup> {
  const cached = (await findFreshProfiles(em, input.organizationId, [input.networkUrl], clients.config.ENRICHMENT_CACHE_DAYS)).get(input.networkUrl);
  const searched = ENRICHMENT_FIELDS.filter((field) => !cached?.searched.includes(field));
  const person: PersonFacts = {
    firstName: cached?.firstName ?? undefined,
    lastName: cached?.lastName ?? undefined,
    title: cached?.title ?? undefined,
    company: cached?.company ?? undefined,
  };
  if (searched.length === 0) return { found: true, person, values: {}, searched };
  const { chain, checker } = await prepareWaterfall(em, clients, input.organizationId);
  const result = await runWaterfall({ networkUrl: input.networkUrl, person, fields: searched }, chain, checker);
  return { found: result.found || cached !== undefined, person: result.person, values: result.values, searched };
}

/**
 * Charges the verified finds and stores them in the cache, in one transaction under the organization's
 * lock, and records the answer. Run again (an activity retry), it returns the recorded answer.
 */
export async function settleProfile(
  em: EntityManager,
  clients: EnrichmentClients,
  input: SingleEnrichmentInput,
  lookup: ProfileLookup,
): Promise<SingleEnrichmentResult> {
  return em.transactional(async (tx) => {
    await lockOrganization(tx, input.organizationId);
    const recorded = await kysely(tx).selectFrom('enrichment_request').select('result').where('id', '=', input.requestId).executeTakeFirst();
    if (recorded) return recorded.result as unknown as SingleEnrichmentResult;

    const cached = (await findFreshProfiles(tx, input.organizationId, [input.networkUrl], clients.config.ENRICHMENT_CACHE_DAYS)).get(
      input.networkUrl,
    );
    const delivery = await deliverFinds(
      tx,
      {
        organizationId: input.organizationId,
        keyPrefix: `enrich:${input.requestId}`,
        reason: 'Enrichment',
        refType: 'enrichment_request',
        refId: input.requestId,
      },
      ENRICHMENT_FIELDS,
      lookup.values,
      cached,
      { stopWhenShort: false },
    );
    const entry = mergeCacheEntry(
      cached,
      {
        networkUrl: input.networkUrl,
        person: lookup.person,
        values: delivery.values,
        searched: lookup.searched.filter((field) => !delivery.withheld.includes(field)),
        paid: delivery.charged.length > 0,
      },
      new Date(),
    );
    if (entry) await saveCacheEntries(tx, input.organizationId, [entry]);

    const found = lookup.found || cached !== undefined;
    const person = entry ?? { firstName: lookup.person.firstName, lastName: lookup.person.lastName, title: lookup.person.title, company: lookup.person.company };
    const result: SingleEnrichmentResult = {
      success: found,
      profile: found
        ? {
            networkUrl: input.networkUrl,
            firstName: person.firstName ?? null,
            lastName: person.lastName ?? null,
            title: person.title ?? null,
            company: person.company ?? null,
            workEmail: delivery.values.workEmail ?? null,
            personalEmail: delivery.values.personalEmail ?? null,
            phone: delivery.values.phone ?? null,
          }
        : { networkUrl: input.networkUrl },
      creditsUsed: delivery.credits,
      withheld: delivery.withheld,
    };
    if (delivery.values.workEmail) await fillEmailsOfProfile(tx, input.organizationId, input.networkUrl, delivery.values.workEmail);
    await kysely(tx)
      .insertInto('enrichment_request')
      .values({
        id: input.requestId,
        organization: input.organizationId,
        networkUrl: input.networkUrl,
        creditsUsed: delivery.credits,
        result: result as unknown as Record<string, unknown>,
        createdAt: sql<Date>`now()`,
      })
      .execute();
    return result;
  });
}
