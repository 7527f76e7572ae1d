import { ApplicationFailure } from '@temporalio/common';
import { ProviderAuthError, ProviderError, ProviderRateLimitError } from '../src/providers/errors.ts';

/**
 * A provider error as the Temporal failure that gets the retry right: rejected credentials are never
 * retried (the job fails with the provider's reason), a rate limit waits for the provider's
 * Retry-After, other transient errors take the activity's backoff. Anything else passes through.
 */
export function toActivityFailure(error: unknown): unknown {
  if (!(error instanceof ProviderError)) return error;
  if (error instanceof ProviderAuthError) {
    return ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: true });
  }
  if (error instanceof ProviderRateLimitError) {
    return ApplicationFailure.create({ message: error.message, type: error.name, nextRetryDelay: Math.max(1, error.retryAfterMs) });
  }
  return ApplicationFailure.create({ message: error.message, type: error.name, nonRetryable: !error.retryable });
}
