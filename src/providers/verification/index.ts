import type { ProviderTuning } from '../http.ts';
import { ReacherProvider } from './reacher.ts';
import type { EmailVerificationProvider, VerificationProviderName } from './types.ts';
import { ZeroBounceProvider } from './zerobounce.ts';

export type { EmailVerificationProvider } from './types.ts';

/** The verification part of the service configuration (src/config.ts spells it the same way). */
export interface VerificationProviderConfig {
  VERIFICATION_PROVIDER: VerificationProviderName;
  ZEROBOUNCE_API_KEY?: string;
  ZEROBOUNCE_BASE_URL: string;
  ZEROBOUNCE_BULK_BASE_URL: string;
  REACHER_BASE_URL?: string;
  REACHER_API_KEY?: string;
}

/**
 * The configured verification adapter; create it once per worker (it owns the rate limiter). A
 * missing key or base URL does not stop the worker: the first `verify` call fails with a
 * non-retryable ProviderAuthError naming what is missing.
 */
export function createVerificationProvider(
  config: VerificationProviderConfig,
  tuning: ProviderTuning = {},
): EmailVerificationProvider {
  switch (config.VERIFICATION_PROVIDER) {
    case 'zerobounce':
      return new ZeroBounceProvider({
        ...tuning,
        apiKey: config.ZEROBOUNCE_API_KEY,
        baseUrl: config.ZEROBOUNCE_BASE_URL,
        bulkBaseUrl: config.ZEROBOUNCE_BULK_BASE_URL,
      });
    case 'reacher':
      return new ReacherProvider({
        ...tuning,
        baseUrl: config.REACHER_BASE_URL,
        apiKey: config.REACHER_API_KEY,
      });
  }
}
