// The dashboard's one way to call the service: same origin, the session cookie, JSON in and out.
// Errors come back as the API's own sentence (plus the fields a validation error names), never a bare code.

export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
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

function describe(status: number, body: unknown): ApiFailure {
  const error = (body as ErrorBody | null)?.error;
  if (!error)
    return new ApiFailure(
      status,
      'unexpected',
      `The service answered ${status} without an explanation. Try again in a moment.`,
    );
  let message = error.message;
  const details = error.details;
  if (Array.isArray(details) && details.length > 0) {
    const fields = details
      .map((d: { path?: unknown; message?: unknown; row?: unknown }) =>
        [d.path, d.message].filter((part) => typeof part === 'string' && part).join(': '),
      )
      .filter(Boolean);
    if (fields.length > 0) message += ` (${fields.join('; ')})`;
  } else if (details && typeof details === 'object') {
    const d = details as Record<string, unknown>;
    if (typeof d.currentState === 'string') message += ` (it is ${d.currentState.replaceAll('_', ' ')} now)`;
    if (Array.isArray(d.accepted)) message += ` Accepted column names: ${d.accepted.join(', ')}.`;
  }
  return new ApiFailure(status, error.code, message);
}

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['Content-Type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiFailure(0, 'network', 'The service cannot be reached. Check your connection and try again.');
  }
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
