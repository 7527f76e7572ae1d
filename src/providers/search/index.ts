import type { ProviderTuning } from '../http.ts';
import { BraveProvider } from './brave.ts';
import { SerperProvider } from './serper.ts';
import type { ProfileSearchProvider, SearchProviderName } from './types.ts';

export type { ProfileSearchProvider } from './types.ts';

/** The search part of the service configuration (src/config.ts spells it the same way). */
export interface SearchProviderConfig {
  SEARCH_PROVIDER: SearchProviderName;
  SERPER_API_KEY?: string;
  SERPER_BASE_URL: string;
  BRAVE_API_KEY?: string;
  BRAVE_BASE_URL: string;
}

/**
 * The configured search adapter; create it once per worker (it owns the rate limiter). A missing
 * key surfaces as a non-retryable ProviderAuthError on the first search.
 */
export function createSearchProvider(
  config: SearchProviderConfig,
  tuning: ProviderTuning = {},
): ProfileSearchProvider {
  switch (config.SEARCH_PROVIDER) {
    case 'serper':
      return new SerperProvider({
        ...tuning,
        apiKey: config.SERPER_API_KEY,
        baseUrl: config.SERPER_BASE_URL,
      });
    case 'brave':
      return new BraveProvider({ ...tuning, apiKey: config.BRAVE_API_KEY, baseUrl: config.BRAVE_BASE_URL });
  }
}
