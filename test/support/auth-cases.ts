import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/domain/api-key-format.ts';
import type { Scope } from '../../src/http/env.ts';
import { ALL_SCOPES } from '../../src/http/middleware/session.ts';
import { Agent, type AgentResponse, expectError } from './agent.ts';
import type { Harness } from './harness.ts';

/** One organization's resources that the generated cases aim at. */
export interface OrgResources {
  listId: string;
  leadId: string;
  /** A verification job of the list (left at smtp_verifying: the auth test runs no worker). */
  verificationJobId: string;
  /** A bulk enrichment job of the list (left pending). */
  enrichmentJobId: string;
  /** A settled find of the email finder. */
  findId: string;
}

export interface ExternalRoute {
  /** As in the OpenAPI document, e.g. `GET /api/external/lists/{listId}`. */
  name: string;
  path: (r: OrgResources) => string;
  /** A body, or one naming this organization's resources. */
  body?: unknown;
  /** Any one of these scopes grants the route. */
  scopes: readonly Scope[];
  /**
   * A key of another organization: routes naming this organization's resources answer 404; the others
   * act for the key's own organization, and `check` proves nothing of this organization shows.
   */
  otherOrganization: { status: 404 } | { status: number; check: (res: AgentResponse, r: OrgResources) => void };
  /** The route also takes a session (`/api/webhooks`): without a key it is refused as a request without a session. */
  sessionOrKey?: true;
}

const notFound = { status: 404 } as const;
const ids = (res: AgentResponse) => (res.body.data as Array<{ id: string }>).map((x) => x.id);

/** Every route of CONTRACT §1.3; the auth test proves this table and the OpenAPI document list the same routes. */
export const EXTERNAL_ROUTES: ExternalRoute[] = [
  {
    name: 'GET /api/external/lists',
    path: () => '/api/external/lists',
    scopes: ['lists:read'],
    otherOrganization: { status: 200, check: (res, r) => expect(ids(res)).not.toContain(r.listId) },
  },
  { name: 'GET /api/external/lists/{listId}', path: (r) => `/api/external/lists/${r.listId}`, scopes: ['lists:read'], otherOrganization: notFound },
  {
    name: 'GET /api/external/lists/{listId}/leads',
    path: (r) => `/api/external/lists/${r.listId}/leads`,
    scopes: ['lists:read', 'leads:read'],
    otherOrganization: notFound,
  },
  {
    name: 'POST /api/external/lists',
    path: () => '/api/external/lists',
    body: { name: 'From an integration' },
    scopes: ['lists:write'],
    // Created in the key's own organization; `resourcesIntact` shows this one's lists untouched.
    otherOrganization: { status: 201, check: (res, r) => expect(res.body.id).not.toBe(r.listId) },
  },
  {
    name: 'PATCH /api/external/lists/{listId}',
    path: (r) => `/api/external/lists/${r.listId}`,
    body: { name: 'Renamed' },
    scopes: ['lists:write'],
    otherOrganization: notFound,
  },
  { name: 'DELETE /api/external/lists/{listId}', path: (r) => `/api/external/lists/${r.listId}`, scopes: ['lists:write'], otherOrganization: notFound },
  {
    name: 'GET /api/external/leads',
    path: () => '/api/external/leads',
    scopes: ['leads:read'],
    otherOrganization: { status: 200, check: (res, r) => expect(ids(res)).not.toContain(r.leadId) },
  },
  { name: 'GET /api/external/leads/{leadId}', path: (r) => `/api/external/leads/${r.leadId}`, scopes: ['leads:read'], otherOrganization: notFound },
  {
    name: 'POST /api/external/lists/{listId}/leads',
    path: (r) => `/api/external/lists/${r.listId}/leads`,
    body: { leads: [{ email: 'intruder@example.test' }] },
    scopes: ['leads:write'],
    otherOrganization: notFound,
  },
  {
    name: 'PATCH /api/external/leads/{leadId}',
    path: (r) => `/api/external/leads/${r.leadId}`,
    body: { title: 'Changed' },
    scopes: ['leads:write'],
    otherOrganization: notFound,
  },
  { name: 'DELETE /api/external/leads/{leadId}', path: (r) => `/api/external/leads/${r.leadId}`, scopes: ['leads:write'], otherOrganization: notFound },
  // CONTRACT §9.1
  {
    name: 'POST /api/external/verify',
    path: () => '/api/external/verify',
    body: { email: 'owned@acme.test', timeoutMs: 1000 },
    scopes: ['verification:write'],
    // Checked for the key's own organization, which never saw the address: nothing of this one's is reused.
    otherOrganization: { status: 200, check: (res) => expect(res.body.cached).toBe(false) },
  },
  {
    name: 'POST /api/external/verification/jobs',
    path: () => '/api/external/verification/jobs',
    body: (r: OrgResources) => ({ listId: r.listId, verificationMethod: 'smtp_only' }),
    scopes: ['verification:write'],
    otherOrganization: notFound,
  },
  {
    name: 'GET /api/external/verification/jobs/{jobId}',
    path: (r) => `/api/external/verification/jobs/${r.verificationJobId}`,
    scopes: ['verification:read'],
    otherOrganization: notFound,
  },
  {
    name: 'GET /api/external/verification/jobs/{jobId}/events',
    path: (r) => `/api/external/verification/jobs/${r.verificationJobId}/events`,
    scopes: ['verification:read'],
    otherOrganization: notFound,
  },
  {
    name: 'GET /api/external/verification/jobs/{jobId}/results',
    path: (r) => `/api/external/verification/jobs/${r.verificationJobId}/results`,
    scopes: ['verification:read'],
    otherOrganization: notFound,
  },
  {
    name: 'GET /api/external/verification/jobs/{jobId}/results/{email}',
    path: (r) => `/api/external/verification/jobs/${r.verificationJobId}/results/owned%40acme.test`,
    scopes: ['verification:read'],
    otherOrganization: notFound,
  },
  {
    name: 'POST /api/external/verification/jobs/{jobId}/decision',
    path: (r) => `/api/external/verification/jobs/${r.verificationJobId}/decision`,
    body: { decision: 'accept_current' },
    scopes: ['verification:write'],
    otherOrganization: notFound,
  },
  {
    name: 'POST /api/external/verification/jobs/{jobId}/finish-deferred',
    path: (r) => `/api/external/verification/jobs/${r.verificationJobId}/finish-deferred`,
    scopes: ['verification:write'],
    otherOrganization: notFound,
  },
  {
    name: 'POST /api/external/enrich',
    path: () => '/api/external/enrich',
    body: { networkUrl: 'https://www.linkedin.com/in/someone-else' },
    scopes: ['enrichment:write'],
    // Acts for the key's own organization, which has no credits: refused before any provider is asked.
    otherOrganization: { status: 402, check: (res) => expect(res.body.error.code).toBe('insufficient_credits') },
  },
  {
    name: 'POST /api/external/enrichment/bulk',
    path: () => '/api/external/enrichment/bulk',
    body: (r: OrgResources) => ({ listId: r.listId }),
    scopes: ['enrichment:write'],
    otherOrganization: notFound,
  },
  {
    name: 'GET /api/external/enrichment/bulk/{jobId}/events',
    path: (r) => `/api/external/enrichment/bulk/${r.enrichmentJobId}/events`,
    scopes: ['enrichment:write'],
    otherOrganization: notFound,
  },
  {
    name: 'POST /api/external/find-email',
    path: () => '/api/external/find-email',
    body: { firstName: 'Jane', lastName: 'Doe', domain: 'acme.test' },
    scopes: ['enrichment:write'],
    // Acts for the key's own organization, which has no credits: refused before any mail server is asked.
    otherOrganization: { status: 402, check: (res) => expect(res.body.error.code).toBe('insufficient_credits') },
  },
  {
    name: 'GET /api/external/find-email/{findId}',
    path: (r) => `/api/external/find-email/${r.findId}`,
    scopes: ['enrichment:write'],
    otherOrganization: notFound,
  },
  {
    name: 'GET /api/external/enrichment/bulk/{jobId}',
    path: (r) => `/api/external/enrichment/bulk/${r.enrichmentJobId}`,
    scopes: ['enrichment:write'],
    otherOrganization: notFound,
  },
];

/** Creates a key through the dashboard route and returns its secret. */
export async function createKey(session: Agent, scopes: readonly Scope[], extra: { name?: string; expiresAt?: string } = {}) {
  const res = await session.post('/api/api-keys', { name: extra.name ?? `key ${scopes.join(' ')}`, scopes, ...extra });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; key: string };
}

export interface AuthCaseFixture {
  h: Harness;
  resources: OrgResources;
  keys: {
    revoked: string;
    expired: string;
    otherOrganization: string;
    /** This organization's keys holding every scope except the given ones, by `scopes.join()`. */
    lacking: (scopes: readonly Scope[]) => string;
  };
}

/** An organization with a list, a lead and every kind of key the cases need, plus another organization's key. */
export async function createAuthCaseFixture(h: Harness, routes: ExternalRoute[] = EXTERNAL_ROUTES): Promise<AuthCaseFixture> {
  const { agent: owner } = await h.signup({ credits: 10 });
  const list = (await owner.post('/api/lists', { name: 'Owned', description: 'not yours' })).body;
  const lead = (await owner.post(`/api/lists/${list.id}/leads`, { leads: [{ email: 'owned@acme.test', phone: '+14155552671' }] })).body.leads[0];
  const verification = await owner.post('/api/verification/jobs', { listId: list.id, verificationMethod: 'smtp_only' });
  const enrichment = await owner.post('/api/enrichment/bulk', { listId: list.id });
  if (verification.status !== 201 || enrichment.status !== 201) throw new Error(`job creation failed: ${verification.text} ${enrichment.text}`);

  const findId = randomUUID();
  await h.sql(
    `insert into email_find (id, organization_id, first_name, last_name, domain, answer, credits_used, created_at, completed_at)
     select ?, organization_id, 'Jane', 'Doe', 'acme.test', ?::jsonb, 0, now(), now() from lead_list where id = ?`,
    [findId, JSON.stringify({ email: null, result: null, catchAllScore: null, template: null, candidatesTried: [], creditsUsed: 0 }), list.id],
  );

  const revoked = await createKey(owner, ALL_SCOPES);
  expect((await owner.delete(`/api/api-keys/${revoked.id}`)).status).toBe(204);
  const expired = await createKey(owner, ALL_SCOPES, { expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  await h.sql(`update api_key set expires_at = now() - interval '1 second' where id = ?`, [expired.id]);

  const lacking = new Map<string, string>();
  for (const scopes of new Set([...EXTERNAL_ROUTES, ...routes].map((r) => r.scopes.join()))) {
    const others = ALL_SCOPES.filter((s) => !scopes.split(',').includes(s));
    lacking.set(scopes, (await createKey(owner, others)).key);
  }

  const { agent: stranger } = await h.signup();
  const otherOrganization = await createKey(stranger, ALL_SCOPES);
  return {
    h,
    resources: { listId: list.id, leadId: lead.id, verificationJobId: verification.body.id, enrichmentJobId: enrichment.body.jobId, findId },
    keys: {
      revoked: revoked.key,
      expired: expired.key,
      otherOrganization: otherOrganization.key,
      lacking: (scopes) => lacking.get(scopes.join())!,
    },
  };
}

/** A refused request changed nothing: the list and the lead are still there, as they were. */
async function expectResourcesIntact(h: Harness, r: OrgResources) {
  const [list] = await h.sql(`select name from lead_list where id = ?`, [r.listId]);
  const [lead] = await h.sql(`select title, list_id from lead where id = ?`, [r.leadId]);
  expect(list).toEqual({ name: 'Owned' });
  expect(lead).toEqual({ title: null, list_id: r.listId });
  const [{ n }] = await h.sql(`select count(*)::int as n from lead where list_id = ?`, [r.listId]);
  expect(n).toBe(1);
}

/**
 * For every route: no key, malformed key, unknown key, revoked key, expired key (401), a key lacking the
 * scope (403 with `details.requiredScope`), and another organization's key (404 on this organization's
 * resources). Every refused request is checked to have changed nothing.
 */
export function describeExternalAuthCases(fixture: () => AuthCaseFixture, routes: ExternalRoute[] = EXTERNAL_ROUTES) {
  for (const route of routes) {
    const [method = ''] = route.name.split(' ');
    const send = async (headers: Record<string, string>) => {
      const { h, resources } = fixture();
      // A fresh client: no cookie, nothing but the headers given.
      const body = typeof route.body === 'function' ? (route.body as (r: OrgResources) => unknown)(resources) : route.body;
      return new Agent(h.app).send(method, route.path(resources), { body, headers });
    };
    const refusedWith = async (headers: Record<string, string>, status: number, code: string, reason?: string) => {
      const error = expectError(await send(headers), status, code);
      if (reason) expect(error.details?.reason).toBe(reason);
      await expectResourcesIntact(fixture().h, fixture().resources);
      return error;
    };

    describe(route.name, () => {
      it('refuses a request without a key (401)', () => refusedWith({}, 401, 'unauthorized', route.sessionOrKey ? undefined : 'missing'));

      it('refuses malformed keys (401)', async () => {
        const good = generateApiKey();
        const typo = good.slice(0, 10) + (good[10] === 'a' ? 'b' : 'a') + good.slice(11);
        for (const key of ['secret', `Bearer ${good}`, typo, good.slice(0, -1), `lek_${'0'.repeat(38)}`]) {
          await refusedWith({ 'x-api-key': key }, 401, 'unauthorized', 'malformed');
        }
      });

      it('refuses a well-formed key that was never issued (401)', () =>
        refusedWith({ 'x-api-key': generateApiKey() }, 401, 'unauthorized', 'unknown'));

      it('refuses a revoked key (401)', () => refusedWith({ 'x-api-key': fixture().keys.revoked }, 401, 'unauthorized', 'revoked'));

      it('refuses an expired key (401)', () => refusedWith({ 'x-api-key': fixture().keys.expired }, 401, 'unauthorized', 'expired'));

      it(`refuses a key without ${route.scopes.join(' or ')} (403 with requiredScope)`, async () => {
        const error = await refusedWith({ 'x-api-key': fixture().keys.lacking(route.scopes) }, 403, 'forbidden');
        expect(error.details.requiredScope).toBe(route.scopes[0]);
        expect(error.details.acceptedScopes).toEqual(route.scopes);
      });

      it(`answers another organization's key with ${route.otherOrganization.status}, showing and touching nothing of this one`, async () => {
        const expected = route.otherOrganization;
        const headers = { 'x-api-key': fixture().keys.otherOrganization };
        if (!('check' in expected)) {
          await refusedWith(headers, 404, 'not_found');
          return;
        }
        const res = await send(headers);
        expect(res.status).toBe(expected.status);
        expected.check(res, fixture().resources);
        await expectResourcesIntact(fixture().h, fixture().resources);
      });
    });
  }
}
