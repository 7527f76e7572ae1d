/**
 * Typed failures of outside providers. Activities turn them into Temporal failures: `retryable`
 * (and `isRetryableProviderError`) decides whether a retry can help; `name` is a stable type string
 * usable in `nonRetryableErrorTypes`. Messages never carry API keys (see redact.ts).
 */
export class ProviderError extends Error {
  readonly provider: string;
  /** HTTP status of the answer that caused the failure, when there was one. */
  readonly status: number | undefined;
  readonly retryable: boolean;

  constructor(provider: string, message: string, options: { status?: number; retryable: boolean }) {
    super(message);
    this.name = 'ProviderError';
    this.provider = provider;
    this.status = options.status;
    this.retryable = options.retryable;
  }
}

/** The provider rejected the credentials or the account cannot be used (401/403/402, invalid-key answers). Never retried. */
export class ProviderAuthError extends ProviderError {
  constructor(provider: string, message: string, status?: number) {
    super(provider, message, { status, retryable: false });
    this.name = 'ProviderAuthError';
  }
}

/** The provider asked us to slow down (429 or equivalent); try again after `retryAfterMs`. */
export class ProviderRateLimitError extends ProviderError {
  readonly retryAfterMs: number;

  constructor(provider: string, message: string, retryAfterMs: number, status?: number) {
    super(provider, message, { status, retryable: true });
    this.name = 'ProviderRateLimitError';
    this.retryAfterMs = retryAfterMs;
  }
}

/** Network failure, timeout, 5xx or "retry later" answers that persisted through the in-call retries. */
export class ProviderUnavailableError extends ProviderError {
  constructor(provider: string, message: string, status?: number) {
    super(provider, message, { status, retryable: true });
    this.name = 'ProviderUnavailableError';
  }
}

/**
 * The answer did not have the documented shape (not JSON, or failed its schema). Retryable, because
 * a proxy or a provider hiccup can produce it; a persistent one exhausts the activity's attempts.
 */
export class ProviderResponseError extends ProviderError {
  constructor(provider: string, message: string, status?: number) {
    super(provider, message, { status, retryable: true });
    this.name = 'ProviderResponseError';
  }
}

/** The provider refused this request for a reason repeating it cannot fix (400, 404 of an endpoint, 412, ...). */
export class ProviderRequestError extends ProviderError {
  constructor(provider: string, message: string, status?: number) {
    super(provider, message, { status, retryable: false });
    this.name = 'ProviderRequestError';
  }
}

/** True for provider failures that may succeed when tried again later; false for everything else. */
export function isRetryableProviderError(error: unknown): boolean {
  return error instanceof ProviderError && error.retryable;
}
