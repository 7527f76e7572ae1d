import type { ProviderTuning } from '../http.ts';
import { BraveProvider } from './brave.ts';
import { SerperProvider } from './serper.ts';
import type { ProfileSearchProvider, SearchProviderName } from './types.ts';

export type { ProfileSearchProvider, SearchHit, SearchProviderName } from './types.ts';
export { BraveProvider, type BraveOptions } from './brave.ts';
export { SerperProvider, type SerperOptions } from './serper.ts';

export interface SearchProviderConfig {
  /** `SEARCH_PROVIDER`. */
  provider: SearchProviderName;
  serper: { apiKey?: string; baseUrl: string };
  brave: { apiKey?: string; baseUrl: string };
  tuning?: ProviderTuning;
}

/** The configured search adapter; a missing key surfaces as a ProviderAuthError on the first search. */
export function createSearchProvider(config: SearchProviderConfig): ProfileSearchProvider {
  switch (config.provider) {
    case 'serper':
      return new SerperProvider({ ...config.tuning, ...config.serper });
    case 'brave':
      return new BraveProvider({ ...config.tuning, ...config.brave });
  }
}
