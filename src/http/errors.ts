import { z } from '@hono/zod-openapi';
import type { ApiError, ErrorCode } from '../errors.ts';

/** The status of every error response derives from this one map. */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  forbidden: 403,
  not_found: 404,
  invalid_state: 409,
  conflict: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

export const statusOf = <C extends ErrorCode>(error: ApiError<C>): (typeof ERROR_STATUS)[C] => ERROR_STATUS[error.code];

export const errorBody = (error: ApiError) => ({
  error: {
    code: error.code,
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
  },
});

export const ErrorBodySchema = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
  })
  .openapi('Error');

const DESCRIPTIONS: Record<ErrorCode, string> = {
  validation_error: 'Malformed JSON, wrong types, unknown enum value or bad UUID',
  unauthorized: 'No valid session or API key',
  insufficient_credits: 'The credit balance cannot start the operation',
  forbidden: 'Missing scope or failed CSRF origin check',
  not_found: 'Missing, or owned by another organization',
  invalid_state: 'Not allowed in the current state',
  conflict: 'Uniqueness conflict',
  payload_too_large: 'Body or upload over the limit',
  uri_too_long: 'Request line over the server limit',
  headers_too_large: 'Request headers over the server limit',
  unsupported_media_type: 'Wrong content type',
  unprocessable: 'Well-formed but unusable input',
  rate_limited: 'Rate limit hit; see Retry-After',
  internal_error: 'Unexpected error',
  unavailable: 'Database or Temporal unreachable',
};

/**
 * What any request may get whatever its route: a request line or headers over Node's limits, answered by
 * server.ts before any route runs, and the failures of the service itself.
 */
const ANY_ROUTE: ErrorCode[] = ['uri_too_long', 'headers_too_large', 'internal_error', 'unavailable'];

/** OpenAPI `responses` entries for the given codes, grouped by status, generated from the same map. */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set([...codes, ...ANY_ROUTE])) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), `\`${code}\`: ${DESCRIPTIONS[code]}`]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, lines]) => [
      status,
      { description: lines.join('; '), content: { 'application/json': { schema: ErrorBodySchema } } },
    ]),
  );
}
