import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
  /** When its headers arrived (Date.now()), for tests that measure a client's pace. */
  at: number;
}

export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

/** Failure modes shared by every stand-in; each applies to the next `times` requests (default: until changed). */
export type StandInMode =
  | { kind: 'normal' }
  /** 429 with `Retry-After` (seconds or an HTTP date) when given. */
  | { kind: 'rate-limited'; retryAfter?: string; status?: number }
  | { kind: 'server-error'; status?: number }
  /** Waits before answering normally (to exercise client timeouts). */
  | { kind: 'delay'; ms: number }
  /** Answers normally only once `release()` is called: a call held in flight for as long as a test looks. */
  | { kind: 'held' }
  /** HTTP 200 with a body that is not the documented shape (default: not JSON at all). */
  | { kind: 'malformed'; body?: string }
  /** Hunter's "still processing, retry later" answer: HTTP 202. */
  | { kind: 'pending' }
  /** Rejects even the right key, in the provider's own way (a key revoked while jobs run). */
  | { kind: 'bad-key' };

export interface StandIn {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Most requests seen in flight at once. */
  readonly maxInFlight: number;
  /** Requests received and not answered yet. */
  readonly inFlight: number;
  setMode(mode: StandInMode, times?: number): void;
  /** Answers every request held so far, and ends `held` mode. */
  release(): void;
  /** Back to normal mode, with the request log and in-flight statistics cleared. */
  reset(): void;
  close(): Promise<void>;
}

export interface RouteContext {
  /** True in `bad-key` mode: the route must answer as for a wrong key. */
  rejectKey: boolean;
}

export type Route = (request: RecordedRequest, context: RouteContext) => Reply | Promise<Reply>;

/** A loopback HTTP server on an ephemeral port that records every request and can be told to misbehave. */
export async function startStandIn(route: Route): Promise<StandIn> {
  const requests: RecordedRequest[] = [];
  let mode: StandInMode = { kind: 'normal' };
  let remaining = 0;
  let inFlight = 0;
  const held: Array<() => void> = [];
  let maxInFlight = 0;

  const nextMode = (): StandInMode => {
    if (remaining <= 0) return { kind: 'normal' };
    remaining--;
    return mode;
  };

  const server = createServer((req, res) => {
    const at = Date.now();
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    handle(req, res, at).catch((error: unknown) => {
      if (!res.headersSent) write(res, { status: 599, text: String(error) });
    });
  });

  const handle = async (req: IncomingMessage, res: ServerResponse, at: number): Promise<void> => {
    const recorded = await record(req, at);
    requests.push(recorded);
    const current = nextMode();
    switch (current.kind) {
      case 'rate-limited':
        return write(res, {
          status: current.status ?? 429,
          json: { message: 'Too many requests' },
          headers: current.retryAfter === undefined ? {} : { 'retry-after': current.retryAfter },
        });
      case 'server-error':
        return write(res, { status: current.status ?? 500, json: { message: 'Internal server error' } });
      case 'malformed':
        return write(res, {
          status: 200,
          text: current.body ?? '<html><body>upstream error</body></html>',
          headers: { 'content-type': 'text/html' },
        });
      case 'pending':
        return write(res, { status: 202, json: { data: null } });
      case 'delay':
        await sleep(current.ms);
        if (res.destroyed) return;
        return write(res, await route(recorded, { rejectKey: false }));
      case 'held':
        await new Promise<void>((resolve) => held.push(resolve));
        if (res.destroyed) return;
        return write(res, await route(recorded, { rejectKey: false }));
      case 'bad-key':
        return write(res, await route(recorded, { rejectKey: true }));
      case 'normal':
        return write(res, await route(recorded, { rejectKey: false }));
    }
  };

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    get inFlight() {
      return inFlight;
    },
    release() {
      for (const resolve of held.splice(0)) resolve();
      // A release before the request came lets it through too.
      if (mode.kind === 'held') remaining = 0;
    },
    setMode(next, times = Number.POSITIVE_INFINITY) {
      mode = next;
      remaining = next.kind === 'normal' ? 0 : times;
    },
    reset() {
      for (const resolve of held.splice(0)) resolve();
      mode = { kind: 'normal' };
      remaining = 0;
      requests.length = 0;
      maxInFlight = inFlight;
    },
    close() {
      for (const resolve of held.splice(0)) resolve();
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

async function record(req: IncomingMessage, at: number): Promise<RecordedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  if (raw !== '') {
    try {
      body = JSON.parse(raw);
    } catch {
      body = raw;
    }
  }
  const url = new URL(req.url ?? '/', 'http://stand-in');
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    body,
    at,
  };
}

function write(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const headers: Record<string, string> = { ...reply.headers };
  let payload = '';
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['content-type'] ??= 'application/json';
  } else if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= 'text/plain';
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/** A route per `"METHOD /path"`; any other request is the 404 a real API answers. */
export function routes(table: Record<string, Route>): Route {
  return (request, context) => table[`${request.method} ${request.path}`]?.(request, context) ?? notFound(request);
}

function notFound(request: RecordedRequest): Reply {
  return { status: 404, json: { message: `no route for ${request.method} ${request.path}` } };
}

/**
 * The key check of a keyed stand-in: a request whose key (where `keyOf` finds it) is not `apiKey`, and every
 * request in `bad-key` mode, gets `rejected()`, the provider's own answer to a wrong key; the rest reach `answer`.
 */
export const keyGuard =
  (apiKey: string, keyOf: (request: RecordedRequest) => unknown, rejected: () => Reply) =>
  (answer: (request: RecordedRequest) => Reply): Route =>
  (request, { rejectKey }) =>
    rejectKey || keyOf(request) !== apiKey ? rejected() : answer(request);

/** A header's single value (Node joins or arrays repeated headers). */
export function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** A profile URL as these providers match it: `linkedin.com/in/<slug>` (scheme, subdomain, query, trailing slash ignored). */
export function profileKey(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/^(?:www|[a-z]{2})\./, '')
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '');
}
