import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { multipartBody } from '../support/raw-http.ts';
import { mailWorldEnv, type MailWorld, startMailWorld, standardWorld } from '../support/mail-world/index.ts';
import { type ProviderServers, startProviderServers } from '../support/providers/index.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

// GET /metrics of the whole service (ROLE=all) after real traffic: requests, jobs, provider calls, credits and the
// Temporal worker's own metrics, in the Prometheus text format.
let service: ServiceProcess;
let providers: ProviderServers;
let world: MailWorld;
let cookie: string;

beforeAll(async () => {
  providers = await startProviderServers();
  world = await startMailWorld(standardWorld({ mailboxesPerDomain: 5 }));
  service = await startServiceProcess(
    {
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `metrics-${randomUUID()}`,
      APP_ORIGINS: 'http://app.test',
      SIGNUP_CREDITS: '7',
      SERPER_BASE_URL: providers.urls.SERPER_BASE_URL,
      SERPER_API_KEY: providers.keys.SERPER_API_KEY,
      ...mailWorldEnv(world),
    },
    'all',
  );
  const signup = await fetch(`${service.url}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `m-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Metrics' }),
  });
  cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
});
afterAll(async () => {
  await service?.kill();
  await providers?.close();
  await world?.stop();
});

async function metrics(): Promise<string> {
  const res = await fetch(`${service.url}/metrics`);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

/** The value of one series, or undefined. */
function value(text: string, name: string, labels: Record<string, string>): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('GET /metrics', () => {
  it('counts requests by route and status, jobs by kind and stage, provider calls, credits, SMTP sessions and RCPT replies, and the worker', { timeout: 240_000 }, async () => {
    for (let i = 0; i < 3; i++) await fetch(`${service.url}/api/lists`, { headers: { cookie } });
    await fetch(`${service.url}/api/lists/${randomUUID()}`, { headers: { cookie } });
    const { body, contentType } = multipartBody('company\nAcme\n', { name: 'metrics' });
    const upload = await fetch(`${service.url}/api/scrape/jobs`, { method: 'POST', headers: { cookie, origin: 'http://app.test', 'content-type': contentType }, body });
    expect(upload.status).toBe(201);
    const jobId = ((await upload.json()) as { job: { id: string } }).job.id;
    // Waits for what the metrics below count, however long a loaded machine takes (a fixed number of polls ran out).
    await eventually(
      async () => ((await (await fetch(`${service.url}/api/scrape/jobs/${jobId}`, { headers: { cookie } })).json()) as { status: string }).status,
      (status) => status === 'completed',
      { what: `scrape job ${jobId} completed`, intervalMs: 100 },
    );

    const json = { cookie, origin: 'http://app.test', 'content-type': 'application/json' };
    const list = (await (await fetch(`${service.url}/api/lists`, { method: 'POST', headers: json, body: JSON.stringify({ name: 'm' }) })).json()) as { id: string };
    const leads = ['user0@good.test', 'nobody0@good.test'].map((email) => ({ email }));
    await fetch(`${service.url}/api/lists/${list.id}/leads`, { method: 'POST', headers: json, body: JSON.stringify({ leads }) });
    const verification = (await (
      await fetch(`${service.url}/api/verification/jobs`, { method: 'POST', headers: json, body: JSON.stringify({ listId: list.id, verificationMethod: 'smtp_only' }) })
    ).json()) as { id: string };
    await eventually(
      async () => ((await (await fetch(`${service.url}/api/verification/jobs/${verification.id}`, { headers: { cookie } })).json()) as { verificationStage: string }).verificationStage,
      (stage) => stage === 'completed',
      { what: `verification job ${verification.id} completed`, intervalMs: 100 },
    );

    // The worker's exporter may publish a moment after its first poll.
    await eventually(metrics, (text) => /^temporal_\w+/m.test(text), { what: "the worker's temporal_ metrics", intervalMs: 200 });
    const text = await metrics();
    expect(value(text, 'http_request_duration_seconds_count', { route: '/api/lists', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(3);
    expect(value(text, 'http_request_duration_seconds_count', { route: '/api/lists/:listId', status: '404' })).toBe(1);
    expect(value(text, 'jobs', { kind: 'scrape', stage: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'provider_calls_total', { provider: 'serper', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'credits_total', { direction: 'granted' })).toBeGreaterThanOrEqual(7);
    expect(text).toMatch(/^temporal_\w+/m);
    expect(value(text, 'jobs', { kind: 'verification', stage: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'smtp_connections_total', { outcome: 'opened', mx_provider: 'other' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'smtp_rcpt_replies_total', { result: 'accepted', mx_provider: 'other' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'smtp_rcpt_replies_total', { result: 'mailbox-unknown', mx_provider: 'other' })).toBeGreaterThanOrEqual(1);
    // Sessions open now, per provider and egress (the job is over: none), and the shared budget's lease waits.
    expect(value(text, 'smtp_open_connections', { mx_provider: 'other', egress: 'direct' })).toBe(0);
    expect(text).toMatch(/^# TYPE smtp_lease_waits_total counter$/m);
    expect(text).toMatch(/^# TYPE smtp_lease_wait_seconds_total counter$/m);

    // Log lines written inside an activity carry its workflow and job.
    const finished = service.output().split('\n').find((line) => line.includes('"msg":"scrape job finished"'));
    expect(JSON.parse(finished!)).toMatchObject({ jobId, workflowId: `scrape-${jobId}`, activity: 'completeScrapeJob' });
  });
});
