import type { ProviderTuning } from '../http.ts';
import { ReacherProvider } from './reacher.ts';
import type { EmailVerificationProvider, VerificationProviderName } from './types.ts';
import { ZeroBounceProvider } from './zerobounce.ts';

export type { EmailResult, EmailVerificationProvider, VerificationProviderName, VerificationVerdict } from './types.ts';
export { ReacherProvider, type ReacherOptions } from './reacher.ts';
export { ZeroBounceProvider, type ZeroBounceOptions } from './zerobounce.ts';

export interface VerificationProviderConfig {
  /** `VERIFICATION_PROVIDER`. */
  provider: VerificationProviderName;
  zerobounce: { apiKey?: string; baseUrl: string; bulkBaseUrl: string };
  reacher: { baseUrl?: string; apiKey?: string };
  tuning?: ProviderTuning;
}

/**
 * The configured verification adapter. A missing key or base URL does not stop the worker: the
 * first `verify` call fails with a non-retryable ProviderAuthError naming what is missing.
 */
export function createVerificationProvider(config: VerificationProviderConfig): EmailVerificationProvider {
  switch (config.provider) {
    case 'zerobounce':
      return new ZeroBounceProvider({ ...config.tuning, ...config.zerobounce });
    case 'reacher':
      return new ReacherProvider({ ...config.tuning, ...config.reacher });
  }
}
