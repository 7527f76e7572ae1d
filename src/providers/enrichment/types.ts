export interface FoundEmail {
  email: string;
  /** True when the provider itself verified the address; undefined when it says nothing. */
  verified?: boolean;
}

export interface FoundPhone {
  /** As the provider wrote it; normalize with `normalizePhone` (domain/phone.ts). */
  number: string;
  /** True when the provider flags the number (do-not-call). */
  flagged?: boolean;
}

export interface FoundProfile {
  firstName?: string;
  lastName?: string;
  title?: string;
  company?: string;
  companyDomain?: string;
  /** Normalized profile URL. */
  networkUrl?: string;
  workEmails: FoundEmail[];
  personalEmails: FoundEmail[];
  phones: FoundPhone[];
}

export interface PersonLookup {
  /** Normalized profile URL (domain/profile-url.ts). */
  networkUrl: string;
  firstName?: string;
  lastName?: string;
  company?: string;
  companyDomain?: string;
}

export type EnrichmentProviderName = 'pdl' | 'hunter' | 'lusha';

export type ProviderEmailResult = 'Valid' | 'Invalid' | 'Catch-All' | 'Unknown';

export interface EnrichmentProvider {
  /** An outside adapter's name, or the service's own email finder (src/finder/engine-provider.ts). */
  readonly name: EnrichmentProviderName | 'finder';
  /**
   * The person behind the profile, or null when the provider has no match (or, for Hunter, the
   * lookup lacks a name and a company or domain). The API key is per call: organizations may bring their own.
   */
  enrich(lookup: PersonLookup, apiKey: string): Promise<FoundProfile | null>;
  verifyEmail?(email: string, apiKey: string): Promise<ProviderEmailResult>;
}
