import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { multipartBody, requestBytes, sendRaw } from '../support/raw-http.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

// The whole service (API and worker in one process, as ROLE=all deploys it) behind a real socket, so a request
// that could take the process down would show here as a dead process or an 'uncaught' line in its log.
let service: ServiceProcess;
let cookie: string;
let listId: string;
let orm: Orm;
const sql = (query: string, params: unknown[] = []) => orm.em.fork().getConnection().execute(query, params);
const MAX_FILE = 20_000;

beforeAll(async () => {
  orm = await initOrm(inject('databaseUrl'), { pool: { max: 2 } });
  service = await startServiceProcess(
    {
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `hostile-${randomUUID()}`,
      APP_ORIGINS: 'http://app.test',
      SCRAPE_MAX_FILE_BYTES: String(MAX_FILE),
      SCRAPE_MAX_ROWS: '100',
      RATE_LIMIT_BURST: '1000000',
    },
    'all',
  );
  const signup = await fetch(`${service.url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `u-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Acme' }),
  });
  expect(signup.status).toBe(201);
  cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
  const list = await fetch(`${service.url}/api/lists`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie, origin: service.url },
    body: JSON.stringify({ name: 'Uploads' }),
  });
  listId = ((await list.json()) as { id: string }).id;
});

afterAll(async () => {
  await service?.kill();
  await orm?.close();
});

const leadCsv = (rows: number) => `email,first_name\n${Array.from({ length: rows }, (_, i) => `lead${i}@acme.test,Lead ${i}`).join('\n')}\n`;

function upload(path: string, file: string | Buffer, fields: Record<string, string> = {}) {
  const { body, contentType } = multipartBody(file, fields);
  return requestBytes('POST', path, { cookie, origin: 'http://app.test', 'content-type': contentType }, body);
}

async function leadCount() {
  const [row] = await sql('select count(*)::int as n from lead where list_id = ?', [listId]);
  return row!.n as number;
}

async function expectServing() {
  expect(service.alive()).toBe(true);
  expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  expect(service.output()).not.toMatch(/uncaught|unhandled/i);
}

describe('uploads cut short', () => {
  it('a client that goes away at any byte of a lead import or a scrape upload costs only its own request', async () => {
    const lead = upload(`/api/lists/${listId}/leads/import`, leadCsv(60));
    const scrape = upload('/api/scrape/jobs', `company\n${Array.from({ length: 60 }, (_, i) => `Company ${i}`).join('\n')}\n`, { name: 'cut' });
    for (const bytes of [lead, scrape]) {
      // Every 7th byte: inside the request line, the headers, each part's headers and the file itself; gone at
      // once, or after the server has begun to read the body.
      for (let at = 1; at < bytes.length; at += 7) {
        await sendRaw(service.url, bytes, at);
        await sendRaw(service.url, bytes, at, 20);
      }
    }
    await expectServing();
    expect(await leadCount()).toBe(0);
    const [scrapes] = await sql('select count(*)::int as n from scrape_job where name = ?', ['cut']);
    expect(scrapes!.n).toBe(0);

    const whole = await sendRaw(service.url, lead);
    expect(whole?.status).toBe(201);
    expect(await leadCount()).toBe(60);
  });

  it('a body without its final boundary → 400, nothing stored', async () => {
    const { body, contentType, tail } = multipartBody(leadCsv(5));
    const truncated = body.subarray(0, body.length - tail.length);
    const before = await leadCount();
    const res = await sendRaw(
      service.url,
      requestBytes('POST', `/api/lists/${listId}/leads/import`, { cookie, origin: 'http://app.test', 'content-type': contentType }, truncated),
    );
    expect(res?.status).toBe(400);
    expect(JSON.parse(res!.body).error.code).toBe('validation_error');
    expect(await leadCount()).toBe(before);
    await expectServing();
  });

  it('a file at the limit, in a body over it by its framing, is received whole first and stored on both upload routes', async () => {
    // 90 rows padded to the last byte the limit allows: the request's Content-Length (the file plus its
    // multipart framing) is over the file limit, so the body goes to a temporary file before it is read.
    const rows = (header: string, row: (i: number) => string) => {
      const lines = Array.from({ length: 90 }, (_, i) => row(i));
      const room = MAX_FILE - header.length - lines.join('\n').length - 1;
      lines[0] = `${lines[0]}${' '.repeat(room)}`;
      return `${header}${lines.join('\n')}\n`;
    };
    const leads = rows('email,title\n', (i) => `staged${i}@acme.test,Title ${i}`);
    const companies = rows('company\n', (i) => `Staged Company ${i}`);
    expect([Buffer.byteLength(leads), Buffer.byteLength(companies)]).toEqual([MAX_FILE, MAX_FILE]);
    const before = await leadCount();
    const imported = await sendRaw(service.url, upload(`/api/lists/${listId}/leads/import`, leads));
    expect(imported?.status).toBe(201);
    expect(JSON.parse(imported!.body)).toMatchObject({ created: 90, skipped: 0 });
    expect(await leadCount()).toBe(before + 90);
    const scraped = await sendRaw(service.url, upload('/api/scrape/jobs', companies, { name: 'staged' }));
    expect(scraped?.status).toBe(201);
    const [job] = await sql('select total_items::int as n from scrape_job where name = ?', ['staged']);
    expect(job!.n).toBe(90);
    await expectServing();
  });

  it('a file over the limit → 413 on both upload routes, nothing stored', async () => {
    const big = leadCsv(1000);
    expect(big.length).toBeGreaterThan(MAX_FILE);
    const before = await leadCount();
    for (const path of [`/api/lists/${listId}/leads/import`, '/api/scrape/jobs']) {
      const res = await sendRaw(service.url, upload(path, path.includes('scrape') ? `company\n${big}` : big, { name: 'big' }));
      expect(res?.status).toBe(413);
      expect(JSON.parse(res!.body).error.code).toBe('payload_too_large');
    }
    expect(await leadCount()).toBe(before);
    await expectServing();
  });
});

describe('limits Node enforces before any handler', () => {
  it('a 70 KB path → 414 and 20 KB of headers → 431, in the contract shape', async () => {
    const longPath = await sendRaw(service.url, requestBytes('GET', `/api/lists/${'a'.repeat(70_000)}`, {}));
    expect(longPath?.status).toBe(414);
    expect(JSON.parse(longPath!.body).error.code).toBe('uri_too_long');
    const bigHeaders = await sendRaw(service.url, requestBytes('GET', '/healthz', { 'x-padding': 'b'.repeat(20_000) }));
    expect(bigHeaders?.status).toBe(431);
    expect(JSON.parse(bigHeaders!.body).error.code).toBe('headers_too_large');
    const garbage = await sendRaw(service.url, Buffer.from('NOT HTTP AT ALL\r\n\r\n'));
    expect(garbage?.status).toBe(400);
    await expectServing();
  });
});

describe('JSON bodies bounded before they are parsed', () => {
  const session = () => ({ cookie, origin: 'http://app.test', 'content-type': 'application/json' });
  const post = (path: string, body: string | Buffer) => sendRaw(service.url, requestBytes('POST', path, session(), Buffer.from(body)));

  it('a body over its route limit → 413 in the contract shape; a bulk route takes more, and says so in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const webhookLimit = doc.paths['/api/webhooks']!.post!['x-max-body-bytes'] as number;
    const bulkLimit = doc.paths['/api/lists/{listId}/leads']!.post!['x-max-body-bytes'] as number;
    expect(webhookLimit).toBe(64 * 1024);
    expect(bulkLimit).toBeGreaterThan(webhookLimit);

    const padded = (size: number) => JSON.stringify({ url: 'https://hooks.example.test/x', events: ['*'] }).padEnd(size, ' ');
    const over = await post('/api/webhooks', padded(webhookLimit + 1));
    expect(over?.status).toBe(413);
    expect(JSON.parse(over!.body).error.code).toBe('payload_too_large');
    // Just at the limit the body is read and judged on its content (the URL is refused), not on its size.
    expect((await post('/api/webhooks', padded(webhookLimit)))?.status).toBe(400);

    // The same size on the bulk route is read: 1,001 leads are one too many, a 400 (not a 413).
    const leads = JSON.stringify({ leads: Array.from({ length: 1001 }, (_, i) => ({ email: `l${i}@acme.test`, firstName: 'x'.repeat(60) })) });
    expect(leads.length).toBeGreaterThan(webhookLimit);
    const bulk = await post(`/api/lists/${listId}/leads`, leads);
    expect(bulk?.status).toBe(400);
    expect(JSON.parse(bulk!.body).error.details).toEqual([expect.objectContaining({ path: 'json.leads' })]);
    await expectServing();
  });

  it('a chunked body (no Content-Length) is cut off at the limit as it streams → 413', async () => {
    const chunks = async function* () {
      for (let i = 0; i < 200; i++) yield new TextEncoder().encode(' '.repeat(1024));
    };
    const res = await fetch(`${service.url}/api/webhooks`, { method: 'POST', headers: session(), body: ReadableStream.from(chunks()), duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });

  it('arrays are capped by the schema: 20,000 bad events → one issue, never 20,000 (nor a 500)', async () => {
    const res = await post('/api/webhooks', JSON.stringify({ url: 'https://hooks.example.test/x', events: Array(20_000).fill(0) }));
    expect(res?.status).toBe(400);
    const { details } = JSON.parse(res!.body).error;
    expect(details).toEqual([expect.objectContaining({ path: 'json.events' })]);
    for (const [path, body] of [
      ['/api/api-keys', { name: 'k', scopes: Array(5_000).fill('nope') }],
      ['/api/enrichment/bulk', { listId, fields: Array(5_000).fill({}) }],
    ] as const) {
      const answer = await post(path, JSON.stringify(body));
      expect(answer?.status).toBe(400);
      expect(JSON.parse(answer!.body).error.details.length).toBeLessThanOrEqual(100);
    }
    // Many bad objects within an array's cap list their first 100 issues only.
    const many = await post(`/api/lists/${listId}/leads`, JSON.stringify({ leads: Array.from({ length: 1000 }, () => ({ email: 1, phone: 2 })) }));
    expect(many?.status).toBe(400);
    expect(JSON.parse(many!.body).error.details).toHaveLength(100);
    await expectServing();
  });
});
