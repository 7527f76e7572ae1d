/**
 * `npm run bench -- hostile`: what hostile bodies cost the API process. Every operation of the OpenAPI
 * document that takes a body is sent the largest bodies it
 * accepts (its `x-max-body-bytes`, else BODY_LIMIT_BYTES; an upload's SCRAPE_MAX_FILE_BYTES) filled the
 * ways that cost most once parsed (arrays of as many elements as fit, valid or not; one string as long as
 * fits; an array of empty objects; CSVs of many rows and of megabyte rows), and one just over the limit: each
 * round sends every route one shape and its just-over body at once (about 50 requests). Reports the peak RSS
 * of the API process (VmHWM; target ≤ 512 MB), every status seen (target: 2xx and 4xx only) and the slowest
 * answer (target ≤ 5 s), against the process's RSS before the first request, and the CPU time the API process
 * spent (the figure that stays comparable when other work shares the machine). Each round also prints what the
 * machine's processors did meanwhile: every answer of a round waits for that round's work, so its busy time over
 * the cores is a floor for the round's slowest answer.
 *
 * The API runs alone (`ROLE=api`, as deployed) on a scratch database and a scratch Temporal server (jobs are
 * started, nobody runs them).
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents and generated bodies are untyped JSON */
import { randomUUID } from 'node:crypto';
import { ALL_SCOPES } from '../src/domain/scopes.ts';
import { type Operation, operationsOf, validInstance } from '../test/support/fuzz.ts';
import { multipartBody } from '../test/support/raw-http.ts';
import { API_NODE_FLAGS } from './support/api-flags.ts';
import { BENCH_ORIGIN, signUp, startApiAlone } from './support/api-alone.ts';
import { cpuLine, cpuSample, cpuSeconds } from './support/cpu-use.ts';

/** BENCH_HOSTILE_ONLY: a pattern the cases' labels must match (to look at one route or shape alone). */
const ONLY = new RegExp(process.env.BENCH_HOSTILE_ONLY ?? '');
const DEFAULT_BODY_LIMIT = 1_048_576;
const FILE_LIMIT = 10_485_760;
const MB = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

interface Case {
  label: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** `base` with `field` an array of `item` repeated, grown to exactly `size` bytes (trailing spaces make up the rest). */
function filled(base: Record<string, unknown>, field: string, item: string, size: number): Buffer {
  const [before, after] = JSON.stringify({ ...base, [field]: '__FILL__' }).split('"__FILL__"') as [string, string];
  const room = size - Buffer.byteLength(before) - Buffer.byteLength(after) - 2;
  const count = Math.max(1, Math.floor((room + 1) / (Buffer.byteLength(item) + 1)));
  return Buffer.from(`${before}[${Array(count).fill(item).join(',')}]${after}`.padEnd(size, ' '));
}

/** The same body with one more byte than `size`: over the limit, still well-formed JSON. */
const over = (body: Buffer) => Buffer.concat([body, Buffer.from(' ')]);

function resolve(schema: any, doc: any): any {
  if (schema?.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()], doc);
  if (schema?.allOf) return Object.assign({}, ...schema.allOf.map((s: any) => resolve(s, doc)));
  return schema ?? {};
}

/** A route's bodies at its limit (the costliest shapes), and one just over it. */
interface Cases {
  accepted: Case[];
  over: Case;
}

function jsonCases(op: Operation, doc: any, path: string, headers: Record<string, string>, limit: number): Cases {
  const schema = resolve(op.bodySchema, doc);
  const base = (validInstance(op.bodySchema, doc, 1) ?? {}) as Record<string, unknown>;
  const properties = Object.entries<any>(schema.properties ?? {}).map(([name, s]) => [name, resolve(s, doc)] as const);
  const label = `${op.method} ${op.path}`;
  const cases: Case[] = [];
  const add = (kind: string, body: Buffer) => cases.push({ label: `${label} ${kind}`, method: op.method, path, headers, body });
  for (const [name, prop] of properties.filter(([, p]) => p.type === 'array' || p.anyOf?.some((s: any) => s.type === 'array'))) {
    const items = prop.items ?? prop.anyOf?.find((s: any) => s.type === 'array')?.items;
    const valid = JSON.stringify(validInstance(items, doc, 2) ?? 0);
    add(`[${name}: valid items]`, filled(base, name, valid, limit));
    add(`[${name}: 0s]`, filled(base, name, '0', limit));
    add(`[${name}: {}s]`, filled(base, name, '{}', limit));
  }
  const text = properties.find(([, p]) => p.type === 'string' || p.anyOf?.some((s: any) => s.type === 'string'));
  if (text) {
    const shell = Buffer.byteLength(JSON.stringify({ ...base, [text[0]]: '' }));
    add(`[${text[0]}: long string]`, Buffer.from(JSON.stringify({ ...base, [text[0]]: 'x'.repeat(Math.max(0, limit - shell)) })));
  }
  add('[top-level {}s]', Buffer.from(`[${Array(Math.floor((limit - 2) / 3)).fill('{}').join(',')}]`.padEnd(limit, ' ')));
  // Over the limit: the first accepted shape with one byte more.
  const largest = cases[0]!.body;
  return { accepted: cases, over: { label: `${label} [just over]`, method: op.method, path, headers, body: over(largest) } };
}

function uploadCases(op: Operation, path: string, headers: Record<string, string>): Cases {
  const pad = (i: number, width: number) => `${i}`.padStart(width, '0');
  const [header, row] = op.path.startsWith('/api/scrape')
    ? ['company\n', (i: number) => `Company ${pad(i, 240)}\n`]
    : op.path.startsWith('/api/outcomes')
      ? ['email,outcome\n', (i: number) => `u${pad(i, 60)}@${pad(i, 180)}.test,delivered\n`]
      : ['email,first_name\n', (i: number) => `u${i}@x.test,${pad(i, 200)}\n`];
  // About 40,000 rows of about 250 bytes (under SCRAPE_MAX_ROWS), and ten rows of a megabyte each.
  const rows = [header];
  for (let i = 0, size = header.length; size < FILE_LIMIT - 300; i++) size += rows[rows.push(row(i)) - 1]!.length;
  const manyRows = Buffer.from(rows.join('').padEnd(FILE_LIMIT, '\n'));
  const wide = Buffer.from(`${header}${`${'y'.repeat(1_000_000)}\n`.repeat(10)}`.padEnd(FILE_LIMIT, '\n'));
  const label = `${op.method} ${op.path}`;
  const upload = (kind: string, file: Buffer): Case => {
    const { body, contentType } = multipartBody(file, { name: 'hostile' });
    return { label: `${label} ${kind}`, method: op.method, path, headers: { ...headers, 'content-type': contentType }, body };
  };
  return {
    accepted: [upload('[csv: 250-byte rows at the limit]', manyRows), upload('[csv: 1 MB rows at the limit]', wide)],
    over: upload('[csv: just over]', over(manyRows)),
  };
}

const step = (text: string) => console.log(`· ${text}`);
const cleanups: Array<() => Promise<unknown>> = [];
try {
  step('scratch database and Temporal server');
  const { service } = await startApiAlone('hostile', cleanups, {
    SCRAPE_MAX_FILE_BYTES: String(FILE_LIMIT),
    // As the API runs in production (`npm run start:api`, docker-compose); BENCH_HOSTILE_NODE_OPTIONS='' measures the default heap.
    NODE_OPTIONS: process.env.BENCH_HOSTILE_NODE_OPTIONS ?? API_NODE_FLAGS.join(' '),
  });

  const send = async (c: Pick<Case, 'method' | 'path' | 'headers' | 'body'>) => {
    const started = performance.now();
    const res = await fetch(`${service.url}${c.path}`, { method: c.method, headers: c.headers, body: c.body }).catch((error: Error) => ({ status: 0, text: async () => error.message }));
    const text = await res.text().catch(() => '');
    return { status: res.status, text, ms: performance.now() - started };
  };
  const cookie = await signUp(service.url, 'Hostile');
  const session = { cookie, origin: BENCH_ORIGIN, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => JSON.parse((await send({ method: 'POST', path, headers: session, body: Buffer.from(JSON.stringify(body)) })).text);
  const apiKey = (await post('/api/api-keys', { name: 'hostile', scopes: ALL_SCOPES })).key as string;
  const ids: Record<string, string> = { listId: (await post('/api/lists', { name: 'Hostile' })).id };
  ids.leadId = (await post(`/api/lists/${ids.listId}/leads`, { leads: [{ email: 'lead@hostile.test' }] })).leads[0].id;
  ids.jobId = (await post('/api/verification/jobs', { listId: ids.listId, verificationMethod: 'smtp_only' })).id;
  for (const [name, value] of Object.entries(ids)) if (!value) throw new Error(`fixture ${name} missing`);

  const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as any;
  const routes: Cases[] = [];
  for (const op of operationsOf(doc)) {
    if (!op.bodySchema && !op.multipart) continue;
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name] ?? randomUUID());
    const auth: Record<string, string> = op.auth === 'apiKey' ? { 'x-api-key': apiKey } : op.auth === 'session' ? { cookie, origin: BENCH_ORIGIN } : {};
    const limit = doc.paths[op.path][op.method.toLowerCase()]['x-max-body-bytes'] ?? DEFAULT_BODY_LIMIT;
    routes.push(op.multipart ? uploadCases(op, path, auth) : jsonCases(op, doc, path, { ...auth, 'content-type': 'application/json' }, limit));
  }
  // Each round sends every route one of its accepted shapes and its just-over body, all at once.
  const rounds = Math.max(...routes.map((r) => r.accepted.length));
  step(`${routes.length} routes taking a body, ${rounds} rounds of ${routes.length * 2} requests at once (each route's next costliest shape at its limit, and just over it)`);

  const labels = new Map([[service.pid, 'api']]);
  const idle = await service.rss();
  const cpuBefore = await cpuSeconds(service.pid);
  await service.resetPeakRss();
  const results: Array<{ label: string; status: number; ms: number; text: string }> = [];
  const started = performance.now();
  let peak = 0;
  for (let round = 0; round < rounds; round++) {
    const batch = routes.flatMap((r) => [r.accepted[round % r.accepted.length]!, r.over]).filter((c) => ONLY.test(c.label));
    const machineBefore = await cpuSample(labels);
    const roundStart = performance.now();
    const answers = await Promise.all(batch.map(async (c) => ({ label: c.label, ...(await send(c)) })));
    const roundMs = performance.now() - roundStart;
    const machineAfter = await cpuSample(labels);
    results.push(...answers);
    const roundPeak = await service.peakRss();
    peak = Math.max(peak, roundPeak);
    const slowest = Math.max(...answers.map((a) => a.ms));
    step(`round ${round + 1}: ${(roundMs / 1000).toFixed(1)} s, slowest answer ${(slowest / 1000).toFixed(2)} s, peak RSS so far ${MB(roundPeak)}, now ${MB(await service.rss())}`);
    step(`  ${cpuLine(machineBefore, machineAfter, roundMs)}`);
  }
  const elapsed = performance.now() - started;
  const cpu = (await cpuSeconds(service.pid)) - cpuBefore;
  await new Promise((r) => setTimeout(r, 2000));
  const after = await service.rss();

  const byCase = new Map<string, { statuses: Set<number>; slowest: number }>();
  for (const r of results) {
    const entry = byCase.get(r.label) ?? { statuses: new Set(), slowest: 0 };
    entry.statuses.add(r.status);
    entry.slowest = Math.max(entry.slowest, r.ms);
    byCase.set(r.label, entry);
  }
  console.table([...byCase].map(([label, e]) => ({ case: label, statuses: [...e.statuses].join(','), 'slowest ms': Math.round(e.slowest) })));
  const bad = results.filter((r) => r.status < 200 || r.status >= 500 || (r.status >= 300 && r.status < 400));
  const slowest = Math.max(...results.map((r) => r.ms));
  for (const r of bad.slice(0, 5)) console.log(`  ${r.label} → ${r.status} ${r.text.slice(0, 200)}`);
  console.log(
    [
      `${results.length} requests in ${(elapsed / 1000).toFixed(1)} s, ${cpu.toFixed(1)} s of the API process's CPU`,
      `API process RSS: ${MB(idle)} idle before, peak ${MB(peak)} (target ≤ 512 MB), ${MB(after)} 2 s after`,
      `answers outside 2xx/4xx: ${bad.length} (target 0); slowest answer ${(slowest / 1000).toFixed(2)} s (target ≤ 5 s)`,
      `process alive: ${service.alive()}`,
    ].join('\n'),
  );
} finally {
  for (const cleanup of cleanups) await cleanup().catch((error: unknown) => console.error(error));
}
