import type { ProviderTuning } from '../http.ts';
import { HunterProvider } from './hunter.ts';
import { LushaProvider } from './lusha.ts';
import { PdlProvider } from './pdl.ts';
import type { EnrichmentProvider, EnrichmentProviderName } from './types.ts';

export type {
  EnrichmentProvider,
  EnrichmentProviderName,
  FoundEmail,
  FoundPhone,
  FoundProfile,
  PersonLookup,
} from './types.ts';
export { HunterProvider } from './hunter.ts';
export { LushaProvider } from './lusha.ts';
export { PdlProvider } from './pdl.ts';

/** The enrichment part of the service configuration (src/config.ts spells it the same way). */
export interface EnrichmentProvidersConfig {
  PDL_BASE_URL: string;
  HUNTER_BASE_URL: string;
  LUSHA_BASE_URL: string;
}

/**
 * One adapter per enrichment provider; create them once per worker (each owns its rate limiter).
 * Keys are not part of them: each call passes the key to use (the organization's own, else the
 * platform's `PDL_API_KEY`/`HUNTER_API_KEY`/`LUSHA_API_KEY`).
 */
export function createEnrichmentProviders(
  config: EnrichmentProvidersConfig,
  tuning: ProviderTuning = {},
): Record<EnrichmentProviderName, EnrichmentProvider> {
  return {
    pdl: new PdlProvider({ ...tuning, baseUrl: config.PDL_BASE_URL }),
    hunter: new HunterProvider({ ...tuning, baseUrl: config.HUNTER_BASE_URL }),
    lusha: new LushaProvider({ ...tuning, baseUrl: config.LUSHA_BASE_URL }),
  };
}
