/** The data enrichment adds to a profile, in the order it is charged. */
export const ENRICHMENT_FIELDS = ['workEmail', 'personalEmail', 'phone'] as const;
export type EnrichmentField = (typeof ENRICHMENT_FIELDS)[number];

/** Credits per verified datum (interface.md §8.3); nothing found costs nothing. */
export const CREDIT_PRICES = { workEmail: 1, personalEmail: 1, phone: 2 } as const satisfies Record<EnrichmentField, number>;

export const BULK_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

export const STOP_REASONS = ['insufficient_credits'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** The requested fields in charging order, each once. */
export function orderedFields(fields: readonly EnrichmentField[]): EnrichmentField[] {
  return ENRICHMENT_FIELDS.filter((field) => fields.includes(field));
}

/** What one profile costs at most when every requested field is found and verified. */
export function creditsPerProfile(fields: readonly EnrichmentField[]): number {
  return orderedFields(fields).reduce((sum, field) => sum + CREDIT_PRICES[field], 0);
}

/** The bulk estimate: an upper bound, every lead paying for every requested field. */
export function estimateCredits(leads: number, fields: readonly EnrichmentField[]): number {
  return leads * creditsPerProfile(fields);
}

/**
 * Enrichment providers, in the default waterfall order, with the kind of data each one sells (CONTRACT §6): the
 * service's own email finder first (CONTRACT §14), then the outside ones.
 */
export const ENRICHMENT_PROVIDERS = ['finder', 'pdl', 'hunter', 'lusha'] as const;
export type EnrichmentProviderId = (typeof ENRICHMENT_PROVIDERS)[number];
/** The providers called with an API key (the organization's own, else the platform's): all but the finder. */
export type KeyedProviderId = Exclude<EnrichmentProviderId, 'finder'>;

export const PROVIDER_KINDS = {
  finder: 'finder',
  pdl: 'person_enrichment',
  hunter: 'email_discovery_verification',
  lusha: 'business_email_phone',
} as const satisfies Record<EnrichmentProviderId, string>;
