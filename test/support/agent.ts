/* eslint-disable @typescript-eslint/no-explicit-any -- test bodies are asserted field by field */
interface Fetchable {
  request(input: string, init?: RequestInit, env?: unknown): Response | Promise<Response>;
}

let clients = 0;

export interface AgentResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/**
 * A browser-like client for `app.request()`: keeps the session cookie and, like a browser on the
 * service's own origin, sends `Origin` on unsafe requests unless told otherwise.
 */
export class Agent {
  readonly cookies = new Map<string, string>();
  readonly app: Fetchable;
  origin: string | null = 'http://localhost';
  /** Each agent is its own client address, as @hono/node-server reports it, so throttles stay per test. */
  readonly remoteAddress = `127.1.${(++clients >> 8) & 255}.${clients & 255}`;

  constructor(app: Fetchable) {
    this.app = app;
  }

  async send(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<AgentResponse> {
    const headers = new Headers(init.headers);
    if (this.cookies.size && !headers.has('cookie')) {
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method) && this.origin && !headers.has('origin')) headers.set('origin', this.origin);
    let body: RequestInit['body'];
    if (init.body instanceof FormData || typeof init.body === 'string' || init.body instanceof Uint8Array) {
      body = init.body;
    } else if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    }
    const env = { incoming: { socket: { remoteAddress: this.remoteAddress, remotePort: 40000, remoteFamily: 'IPv4' } } };
    const res = await this.app.request(path, { method, headers, body }, env);
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = '', ...attrs] = cookie.split(';');
      const [name = '', value = ''] = pair.split('=');
      const expired = attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '';
      if (expired) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON (CSV, HTML): the text is the body.
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get = (path: string, headers?: Record<string, string>) => this.send('GET', path, { headers });
  post = (path: string, body?: unknown, headers?: Record<string, string>) => this.send('POST', path, { body, headers });
  put = (path: string, body?: unknown, headers?: Record<string, string>) => this.send('PUT', path, { body, headers });
  patch = (path: string, body?: unknown, headers?: Record<string, string>) => this.send('PATCH', path, { body, headers });
  delete = (path: string, headers?: Record<string, string>) => this.send('DELETE', path, { headers });
}

/** Asserts the contract's error shape and returns the error for further checks. */
export function expectError(res: AgentResponse, status: number, code: string) {
  if (res.status !== status || res.body?.error?.code !== code || typeof res.body?.error?.message !== 'string') {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text}`);
  }
  return res.body.error as { code: string; message: string; details?: any };
}
