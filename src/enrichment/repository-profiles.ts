import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { ENRICHMENT_FIELDS, type EnrichmentField } from '../domain/enrichment.ts';
import { newId } from '../db/entities/common.ts';
import { kysely } from '../db/kysely.ts';

/** The enrichment cache entry of one profile (see the EnrichedProfile entity). */
export interface CachedProfile {
  networkUrl: string;
  firstName: string | null;
  lastName: string | null;
  title: string | null;
  company: string | null;
  values: Partial<Record<EnrichmentField, string>>;
  /** Fields settled for the cache window: a value was paid for, or the waterfall found nothing. */
  searched: EnrichmentField[];
  paidAt: Date;
}

const PROFILE_COLUMNS = [
  'networkUrl', 'firstName', 'lastName', 'title', 'company', 'workEmail', 'personalEmail', 'phone', 'searchedFields', 'paidAt',
] as const;

/** Cache entries paid for within the last `cacheDays` days, by profile URL. */
export async function findFreshProfiles(
  em: EntityManager,
  organizationId: string,
  networkUrls: readonly string[],
  cacheDays: number,
): Promise<Map<string, CachedProfile>> {
  const urls = [...new Set(networkUrls)];
  if (urls.length === 0 || cacheDays <= 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('enriched_profile')
    .select(PROFILE_COLUMNS)
    .where('organization', '=', organizationId)
    .where('networkUrl', 'in', urls)
    .where('paidAt', '>', sql<Date>`now() - make_interval(days => ${cacheDays})`)
    .execute();
  return new Map(
    rows.map(({ workEmail, personalEmail, phone, searchedFields, ...row }) => {
      const values: Partial<Record<EnrichmentField, string>> = {};
      if (workEmail) values.workEmail = workEmail;
      if (personalEmail) values.personalEmail = personalEmail;
      if (phone) values.phone = phone;
      const searched = ENRICHMENT_FIELDS.filter((f) => searchedFields.includes(f));
      return [row.networkUrl, { ...row, values, searched }];
    }),
  );
}

export interface CacheUpdate {
  networkUrl: string;
  person: { firstName?: string | null; lastName?: string | null; title?: string | null; company?: string | null };
  /** Values delivered by this enrichment (paid for now, or taken from the cache). */
  values: Partial<Record<EnrichmentField, string>>;
  /** Fields this enrichment settled: searched by the waterfall and not withheld. */
  searched: readonly EnrichmentField[];
  /** Whether this enrichment charged anything: only a payment starts (or restarts) the cache window. */
  paid: boolean;
}

/**
 * The entry after an enrichment: a fresh entry gains the new values and settled fields (its window
 * restarts when something was paid); without a fresh entry one is started only by a payment.
 * Null when nothing is to be stored.
 */
export function mergeCacheEntry(fresh: CachedProfile | undefined, update: CacheUpdate, now: Date): CachedProfile | null {
  if (!fresh && !update.paid) return null;
  const keep = (field: 'firstName' | 'lastName' | 'title' | 'company') => fresh?.[field] ?? update.person[field] ?? null;
  return {
    networkUrl: update.networkUrl,
    firstName: keep('firstName'),
    lastName: keep('lastName'),
    title: keep('title'),
    company: keep('company'),
    values: { ...fresh?.values, ...update.values },
    searched: ENRICHMENT_FIELDS.filter((f) => fresh?.searched.includes(f) || update.searched.includes(f)),
    paidAt: update.paid || !fresh ? now : fresh.paidAt,
  };
}

/** Writes entries in one statement (a stale entry of the same profile is replaced). */
export async function saveCacheEntries(em: EntityManager, organizationId: string, entries: readonly CachedProfile[]): Promise<void> {
  if (entries.length === 0) return;
  await kysely(em)
    .insertInto('enriched_profile')
    .values(
      entries.map((e) => ({
        id: newId(),
        organization: organizationId,
        networkUrl: e.networkUrl,
        firstName: e.firstName,
        lastName: e.lastName,
        title: e.title,
        company: e.company,
        workEmail: e.values.workEmail ?? null,
        personalEmail: e.values.personalEmail ?? null,
        phone: e.values.phone ?? null,
        searchedFields: sql<EnrichmentField[]>`${[...e.searched]}::text[]`,
        paidAt: e.paidAt,
        updatedAt: sql<Date>`now()`,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['organization', 'networkUrl']).doUpdateSet((eb) => ({
        firstName: eb.ref('excluded.firstName'),
        lastName: eb.ref('excluded.lastName'),
        title: eb.ref('excluded.title'),
        company: eb.ref('excluded.company'),
        workEmail: eb.ref('excluded.workEmail'),
        personalEmail: eb.ref('excluded.personalEmail'),
        phone: eb.ref('excluded.phone'),
        searchedFields: eb.ref('excluded.searchedFields'),
        paidAt: eb.ref('excluded.paidAt'),
        updatedAt: sql<Date>`now()`,
      })),
    )
    .execute();
}
