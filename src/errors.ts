/**
 * The closed set of error codes the whole service throws. Which HTTP status each one answers with is the
 * HTTP layer's business (src/http/errors.ts); code below it only says what went wrong.
 */
export const ERROR_CODES = [
  'validation_error',
  'unauthorized',
  'insufficient_credits',
  'forbidden',
  'not_found',
  'invalid_state',
  'conflict',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'unprocessable',
  'rate_limited',
  'headers_too_large',
  'internal_error',
  'unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ApiError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly details: unknown;
  /** Response headers the refusal implies (`Retry-After`, `RateLimit-*`). */
  readonly headers: Record<string, string>;
  constructor(code: C, message: string, details?: unknown, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const notFound = (what: string) => new ApiError('not_found', `${what} not found`);
export const invalidState = (message: string, currentState: string) =>
  new ApiError('invalid_state', message, { currentState });

/** The Temporal failure type of a job gone, shared by the activities that raise it and the workflows that end on it. */
export const JOB_GONE = 'JobGoneError';

/** The Temporal failure type every job workflow fails with once its job is recorded as failed (workflows/job-lifecycle.ts). */
export const JOB_FAILED = 'JobFailed';

/**
 * A job row deleted while its workflow runs (its list or organization was deleted): every repository of a job
 * kind throws this when the row is missing; `activities/job-gone.ts` turns it into one non-retryable failure.
 */
export class JobGoneError extends Error {
  constructor(kind: 'verification' | 'scrape' | 'enrichment', jobId: string) {
    super(`${kind} job ${jobId} no longer exists`);
    this.name = JOB_GONE;
  }
}
