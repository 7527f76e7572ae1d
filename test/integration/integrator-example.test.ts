import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { paths } from '../../client/index.ts';
import { main, verifyWebhook } from '../../examples/integrator.ts';
import { type Sandbox, startSandbox } from '../../src/sandbox/sandbox.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

// examples/integrator.ts, the README's integrator session on the typed client, against the whole service
// (ROLE=all) wired to the sandbox as `npm run dev` is, with the webhook guard opened for its loopback receiver.
let sandbox: Sandbox;
let service: ServiceProcess;
const ORIGIN = 'http://app.test';

beforeAll(async () => {
  sandbox = await startSandbox({ NODE_ENV: 'development' });
  service = await startServiceProcess(
    {
      ...sandbox.env,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `integrator-example-${randomUUID()}`,
      APP_ORIGINS: ORIGIN,
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    },
    'all',
  );
});
afterAll(async () => {
  await service?.kill();
  await sandbox?.stop();
});

/** The dashboard's one part, through the same generated types: a user signs up and creates the script's key. */
async function apiKey(): Promise<string> {
  const client = createClient<paths>({ baseUrl: service.url });
  const signup = await client.POST('/api/auth/signup', {
    body: { email: `integrator-${randomUUID()}@example.test`, password: 'a long password', organizationName: 'Integrator' },
  });
  expect(signup.response.status).toBe(201);
  const cookie = signup.response.headers.getSetCookie()[0]!.split(';')[0]!;
  const created = await client.POST('/api/api-keys', {
    headers: { cookie, origin: ORIGIN },
    body: { name: 'CRM sync', scopes: ['lists:write', 'leads:write', 'verification:write', 'verification:read', 'webhooks:write'] },
  });
  expect(created.response.status).toBe(201);
  return created.data!.key;
}

describe('examples/integrator.ts', () => {
  it('adds leads, verifies them, follows the job live, downloads the valid ones and checks the webhook signature', { timeout: 120_000 }, async () => {
    const lines: string[] = [];
    const result = await main({ baseUrl: service.url, apiKey: await apiKey(), log: (line) => lines.push(line) });

    expect(result.job).toMatchObject({ verificationStage: 'completed', totalEmails: 3, smtpValidCount: 2, smtpInvalidCount: 1 });
    expect(result.valid.sort()).toEqual(['grace.hopper@mail.sandbox.test', 'jane.doe@acme.sandbox.test']);
    expect(result.event).toMatchObject({ type: 'verification.completed', data: { job: { id: result.job.id, verificationStage: 'completed' } } });
    // Followed over the event stream: the first message is the stage the job was in, the last its end.
    expect(lines.find((line) => line.startsWith('stage: '))).toBeDefined();
    expect(lines.filter((line) => /^(stage|progress): /.test(line)).at(-1)).toBe('stage: completed 3/3');
  });

  it('refuses a webhook whose body or signature was changed', () => {
    const secret = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
    const body = JSON.stringify({ id: 'evt', type: 'verification.completed', createdAt: new Date().toISOString(), data: { job: {} } });
    const id = `msg_${randomUUID()}`;
    const timestamp = new Date();
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, timestamp, body) };
    expect(verifyWebhook(secret, body, headers).type).toBe('verification.completed');
    expect(() => verifyWebhook(secret, body.replace('completed', 'failed'), headers)).toThrow();
    expect(() => verifyWebhook(`whsec_${Buffer.from('another secret').toString('base64')}`, body, headers)).toThrow();
  });
});
