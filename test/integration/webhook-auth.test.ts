import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from '../support/agent.ts';
import { type AuthCaseFixture, createAuthCaseFixture, describeExternalAuthCases, type ExternalRoute } from '../support/auth-cases.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
let fixture: AuthCaseFixture;
/** The fixture organization's endpoint and one delivery of it. */
const target = { endpointId: '', deliveryId: '' };

const ROUTES: ExternalRoute[] = [
  {
    name: 'GET /api/webhooks/{id}/deliveries',
    path: () => `/api/webhooks/${target.endpointId}/deliveries`,
    scopes: ['webhooks:write'],
    otherOrganization: { status: 404 },
    sessionOrKey: true,
  },
  {
    name: 'POST /api/webhooks/{id}/deliveries/{deliveryId}/retry',
    path: () => `/api/webhooks/${target.endpointId}/deliveries/${target.deliveryId}/retry`,
    scopes: ['webhooks:write'],
    otherOrganization: { status: 404 },
    sessionOrKey: true,
  },
];

beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' } });
  fixture = await createAuthCaseFixture(h, ROUTES);
  // A key of the fixture's organization that holds webhooks:write (every scope but verification:read).
  const created = await new Agent(h.app).post('/api/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['*'] }, { 'x-api-key': fixture.keys.lacking(['verification:read']) });
  expect(created.status).toBe(201);
  target.endpointId = created.body.id;
  const eventId = randomUUID();
  target.deliveryId = randomUUID();
  await h.sql(
    `insert into webhook_event (id, organization_id, type, job_id, body, created_at)
     select ?, organization_id, 'verification.completed', ?, '{}', now() from webhook_endpoint where id = ?`,
    [eventId, fixture.resources.verificationJobId, target.endpointId],
  );
  await h.sql(
    `insert into webhook_delivery (id, endpoint_id, event_id, status, attempts, last_status_code, created_at) values (?, ?, ?, 'failed', 3, 500, now())`,
    [target.deliveryId, target.endpointId, eventId],
  );
});
afterAll(() => h.stop());

describe('webhook delivery routes: authentication, scope and tenancy', () => {
  it('documents both routes for a session or a key with webhooks:write', async () => {
    const doc = (await new Agent(h.app).get('/openapi.json')).body;
    for (const route of ROUTES) {
      const [method = '', path = ''] = route.name.split(' ');
      const op = doc.paths[path][method.toLowerCase()];
      expect(op.security).toEqual([{ session: [] }, { apiKey: ['webhooks:write'] }]);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403', '404']));
    }
  });
});

describeExternalAuthCases(() => fixture, ROUTES);

describe('after the refused requests', () => {
  it('the delivery is as it was: none of them reopened it', async () => {
    const [row] = await h.sql(`select status, attempts from webhook_delivery where id = ?`, [target.deliveryId]);
    expect(row).toEqual({ status: 'failed', attempts: 3 });
  });
});
