/* eslint-disable @typescript-eslint/no-explicit-any -- generated requests and answers are untyped JSON */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { CSV_FILES, mutate, ODD_STRINGS, type Operation, operationsOf, RAW_BODIES, type Rng, seededRandom, validInstance } from '../support/fuzz.ts';
import { multipartBody, requestBytes, sendRaw } from '../support/raw-http.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

// Every operation of the OpenAPI document, called with generated valid, mutated and broken requests against the
// whole service in its own process (ROLE=all). Nothing may answer 5xx, every error has the contract's shape, and
// the process is still healthy at the end. Fixed seed, bounded count: the same cases on every run.
const SEED = 20261123;
const CASES_PER_OPERATION = 12;
const ORIGIN = 'http://app.test';

let service: ServiceProcess;
let doc: any;
let cookie: string;
let apiKey: string;
const ids: Record<string, string> = {};
const failures: string[] = [];

async function call(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}) {
  const res = await fetch(`${service.url}${path}`, { method, headers: init.headers, body: init.body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A raw exchange; a connection the server closed without any answer counts as a failure too. */
async function rawCall(bytes: Buffer) {
  const res = await sendRaw(service.url, bytes);
  return res ? { status: res.status, headers: res.headers, text: res.body } : { status: 599, headers: {}, text: 'no answer' };
}

function check(label: string, res: { status: number; headers: Headers | Record<string, string>; text: string }) {
  const header = (name: string) => (res.headers instanceof Headers ? res.headers.get(name) : res.headers[name]);
  if (res.status >= 500) failures.push(`${label} → ${res.status} ${res.text.slice(0, 200)}`);
  if (!header('x-request-id')) failures.push(`${label} → no X-Request-Id`);
  if (res.status < 400) return;
  try {
    const { error } = JSON.parse(res.text);
    const status = ERROR_STATUS[error.code as keyof typeof ERROR_STATUS];
    if (status !== res.status || typeof error.message !== 'string') failures.push(`${label} → ${res.status} with ${res.text.slice(0, 200)}`);
  } catch {
    failures.push(`${label} → ${res.status} not in the error shape: ${res.text.slice(0, 200)}`);
  }
}

beforeAll(async () => {
  service = await startServiceProcess(
    {
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `fuzz-${randomUUID()}`,
      APP_ORIGINS: ORIGIN,
      RATE_LIMIT_BURST: '1000000',
      SIGNUP_PER_HOUR: '1000000',
      LOGIN_PER_MINUTE: '1000000',
      SCRAPE_MAX_FILE_BYTES: '1048576',
      // No network here: lookups fail at once instead of waiting on unreachable resolvers.
      DNS_SERVERS: '127.0.0.1:9',
      SMTP_PROBE_TIMEOUT_MS: '500',
    },
    'all',
  );
  doc = await (await fetch(`${service.url}/openapi.json`)).json();
  const signup = await fetch(`${service.url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `fuzz-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Fuzz' }),
  });
  cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
  const session = { cookie, origin: ORIGIN, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => JSON.parse((await call('POST', path, { headers: session, body: JSON.stringify(body) })).text);
  const scopes = ['lists:read', 'lists:write', 'leads:read', 'leads:write'];
  apiKey = (await post('/api/api-keys', { name: 'fuzz', scopes })).key;
  ids.id = (await post('/api/api-keys', { name: 'disposable', scopes })).id;
  ids.listId = (await post('/api/lists', { name: 'Fuzz list' })).id;
  ids.leadId = (await post(`/api/lists/${ids.listId}/leads`, { leads: [{ email: 'lead@fuzz.test', phone: '+14155550123' }] })).leads[0].id;
  ids.verificationJobId = (await post('/api/verification/jobs', { listId: ids.listId, verificationMethod: 'smtp_only' })).id;
  const { body, contentType } = multipartBody('company\nAcme\n', { name: 'fuzz' });
  ids.scrapeJobId = JSON.parse((await call('POST', '/api/scrape/jobs', { headers: { cookie, origin: ORIGIN, 'content-type': contentType }, body })).text).job.id;
  for (const [name, value] of Object.entries(ids)) if (!value) throw new Error(`fixture ${name} missing`);
});

afterAll(async () => {
  await service?.kill();
});

function authHeaders(op: Operation): Record<string, string> {
  if (op.auth === 'session') return { cookie, origin: ORIGIN };
  if (op.auth === 'apiKey') return { 'x-api-key': apiKey };
  return {};
}

function pathValue(op: Operation, name: string, rng: Rng, valid: boolean): string {
  const known = name === 'jobId' ? (op.path.startsWith('/api/scrape') ? ids.scrapeJobId : ids.verificationJobId) : ids[name];
  if (valid) return known ?? randomUUID();
  const raw = rng.pick([randomUUID(), 'not-a-uuid', '0', '-1', ...ODD_STRINGS.filter((s) => s.length < 3000), known ?? '']);
  // Broken percent-encodings go out as they are; everything else encoded as a client would.
  return rng.next() < 0.15 ? rng.pick(['%E0%A4%A', '%ZZ', '%2F..%2F', '%00', '%C0%AF']) : encodeURIComponent(raw.toWellFormed());
}

function buildPath(op: Operation, rng: Rng, validPath: boolean, validQuery: boolean): string {
  let path = op.path;
  for (const p of op.params.filter((x) => x.in === 'path')) path = path.replace(`{${p.name}}`, pathValue(op, p.name, rng, validPath));
  const query = new URLSearchParams();
  for (const p of op.params.filter((x) => x.in === 'query')) {
    if (!p.required && rng.next() < 0.4) continue;
    const value = validQuery ? validInstance(p.schema, doc, rng.int(1e9)) : mutate(validInstance(p.schema, doc, rng.int(1e9)), rng);
    query.append(p.name, typeof value === 'string' ? value : JSON.stringify(value ?? ''));
    if (!validQuery && rng.next() < 0.2) query.append(p.name, 'duplicate');
  }
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

async function fuzzJson(op: Operation, rng: Rng, index: number) {
  // Case 0 is valid throughout; later ones break one part (path, query, body) or several.
  const kind = index === 0 ? 'valid' : rng.pick(['path', 'query', 'body', 'body', 'raw', 'type', 'all']);
  const path = buildPath(op, rng, kind !== 'path' && kind !== 'all', kind !== 'query' && kind !== 'all');
  const headers = authHeaders(op);
  let body: string | undefined;
  if (op.bodySchema || (kind === 'raw' && op.method !== 'GET')) {
    const valid = op.bodySchema ? validInstance(op.bodySchema, doc, rng.int(1e9)) : {};
    headers['content-type'] = kind === 'type' ? rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) : 'application/json';
    body = kind === 'raw' ? rng.pick(RAW_BODIES) : JSON.stringify(kind === 'body' || kind === 'all' ? mutate(valid, rng) : valid);
  }
  check(`${op.method} ${op.path} [${kind}] ${path.slice(0, 120)} ${body?.slice(0, 120) ?? ''}`, await call(op.method, path, { headers, body }));
}

async function fuzzUpload(op: Operation, rng: Rng) {
  const path = buildPath(op, rng, true, true);
  const headers = authHeaders(op);
  for (const file of CSV_FILES) {
    const fields: Record<string, string> = rng.next() < 0.5 ? { name: rng.pick(ODD_STRINGS.filter((s) => s.length < 3000)) } : { name: 'fuzz upload', inputType: rng.pick(['companies', 'names', 'domains', 'bogus']) };
    const { body, contentType, tail } = multipartBody(typeof file === 'string' ? file : Buffer.from(file), fields);
    const label = `${op.method} ${op.path} upload ${Buffer.from(typeof file === 'string' ? file : file).subarray(0, 40).toString('hex')}`;
    check(label, await rawCall(requestBytes('POST', path, { ...headers, 'content-type': contentType }, body)));
    check(`${label} truncated`, await rawCall(requestBytes('POST', path, { ...headers, 'content-type': contentType }, body.subarray(0, body.length - tail.length))));
    await sendRaw(service.url, requestBytes('POST', path, { ...headers, 'content-type': contentType }, body), rng.int(body.length + 200), rng.int(20));
  }
  for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=', 'application/json', 'text/csv']) {
    check(`${op.method} ${op.path} content-type ${contentType}`, await rawCall(requestBytes('POST', path, { ...headers, 'content-type': contentType }, Buffer.from('email\na@x.test\n'))));
  }
}

describe('OpenAPI fuzz', () => {
  it('no operation answers 5xx or leaves the error shape, whatever it is sent, and the process stays healthy', async () => {
    const rng = seededRandom(SEED);
    const ops = operationsOf(doc);
    expect(ops.length).toBeGreaterThan(40);
    // Calls that end the fuzzer's own session or delete its fixtures go last.
    const last = (op: Operation) => op.method === 'DELETE' || op.path === '/api/auth/logout';
    for (const op of [...ops.filter((o) => !last(o)), ...ops.filter(last)]) {
      if (op.multipart) await fuzzUpload(op, rng);
      for (let i = 0; i < CASES_PER_OPERATION; i++) await fuzzJson(op, rng, i);
    }
    expect(failures).toEqual([]);
    expect(service.alive()).toBe(true);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(service.output()).not.toMatch(/uncaught|unhandled|"msg":"request failed"/i);
  });
});
