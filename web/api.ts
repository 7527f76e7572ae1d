// The dashboard's one way to call the service: same origin, the session cookie, JSON in and out.
// Errors come back as the API's own sentence, a validation error's problems in words by field, never a bare code.
import { reportReached, reportUnreachable } from './connection.ts';

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** A validation error's problems by field name (the last part of its path), in words. */
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}

const unauthorizedListeners = new Set<() => void>();
/** Called when a session call answers 401: the session ended (signed out elsewhere, expired). */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** A validation message of the schema library as a person says it, after the field's name. */
function plainIssue(message: string): string {
  const small = /^Too small: expected (\w+) to have >=?(\d+)/.exec(message);
  if (small) {
    const [, kind, n] = small;
    if (kind === 'array') return n === '1' ? 'choose at least one' : `choose at least ${n}`;
    return n === '1' ? 'is required' : `needs at least ${n} characters`;
  }
  const big = /^Too big: expected (\w+) to have <=?(\d+)/.exec(message);
  if (big) return big[1] === 'array' ? `takes at most ${big[2]}` : `is too long (at most ${big[2]} characters)`;
  if (/received undefined|^Required$/.test(message)) return 'is required';
  if (/^Invalid option/.test(message)) return 'is not one of the choices';
  if (/^Invalid (email|e-mail)/i.test(message)) return 'is not a valid email address';
  if (/^Invalid (URL|url)/.test(message)) return 'is not a valid web address';
  if (/^Invalid UUID/i.test(message)) return 'is not a valid identifier';
  if (/^Invalid input: expected (\w+)/.test(message)) return 'has the wrong kind of value';
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** "json.organizationName" → "organizationName"; "json.leads.3.email" → "email". */
const fieldOf = (path: string) => path.split('.').filter((part) => !/^\d+$/.test(part)).pop() ?? path;
/** "organizationName" → "Organization name". */
export const fieldLabel = (field: string) => {
  const text = field.replace(/([a-z])([A-Z])/g, '$1 $2').replaceAll('_', ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
};

function describe(status: number, body: unknown): ApiFailure {
  const error = (body as ErrorBody | null)?.error;
  if (!error)
    return new ApiFailure(
      status,
      'unexpected',
      `The service answered ${status} without an explanation. Try again in a moment.`,
    );
  const details = error.details;
  if (Array.isArray(details) && details.length > 0) {
    const fields: Record<string, string> = {};
    for (const d of details as Array<{ path?: unknown; message?: unknown }>) {
      if (typeof d.path !== 'string' || typeof d.message !== 'string') continue;
      const field = fieldOf(d.path);
      fields[field] ??= plainIssue(d.message);
    }
    const named = Object.entries(fields).map(([field, text]) => `${fieldLabel(field)}: ${text}.`);
    if (named.length > 0) return new ApiFailure(status, error.code, named.join(' '), fields);
    return new ApiFailure(status, error.code, error.message);
  }
  let message = error.message;
  if (details && typeof details === 'object') {
    const d = details as Record<string, unknown>;
    if (typeof d.currentState === 'string') message += ` (it is ${d.currentState.replaceAll('_', ' ')} now)`;
    if (Array.isArray(d.accepted)) {
      const shown = d.accepted.slice(0, 8).join(', ');
      const more = d.accepted.length - 8;
      message += ` Accepted column names: ${shown}${more > 0 ? ` and ${more} more` : ''}.`;
    }
  }
  return new ApiFailure(status, error.code, message);
}

const UNREACHABLE = 'The service cannot be reached. Check your connection; the page retries by itself.';

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  // A read that hangs (a service stopped mid-answer) ends in an error the screen can offer to retry.
  if (method === 'GET') init.signal = AbortSignal.timeout(30_000);
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    reportUnreachable();
    throw new ApiFailure(0, 'network', UNREACHABLE);
  }
  // A proxy in front of a stopped service answers 502/504 itself.
  if (res.status === 502 || res.status === 504) {
    reportUnreachable();
    throw new ApiFailure(res.status, 'network', UNREACHABLE);
  }
  reportReached();
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null; // not JSON (a proxy's error page): described by its status below
  }
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/api/auth/'))
      unauthorizedListeners.forEach((listener) => listener());
    throw describe(res.status, parsed);
  }
  return parsed as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body);

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  limit: number;
  totalPages: number;
}

export const query = (params: Record<string, string | number | undefined | null>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};
