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
  ProviderEmailResult,
} from './types.ts';
export { HunterProvider, type HunterOptions } from './hunter.ts';
export { LushaProvider, type LushaOptions } from './lusha.ts';
export { PdlProvider, type PdlOptions } from './pdl.ts';

export interface EnrichmentProvidersConfig {
  pdl: { baseUrl: string };
  hunter: { baseUrl: string };
  lusha: { baseUrl: string };
  tuning?: ProviderTuning;
}

/** One adapter per enrichment provider. Keys are not part of it: each call passes the key to use. */
export function createEnrichmentProviders(
  config: EnrichmentProvidersConfig,
): Record<EnrichmentProviderName, EnrichmentProvider> {
  return {
    pdl: new PdlProvider({ ...config.tuning, ...config.pdl }),
    hunter: new HunterProvider({ ...config.tuning, ...config.hunter }),
    lusha: new LushaProvider({ ...config.tuning, ...config.lusha }),
  };
}
