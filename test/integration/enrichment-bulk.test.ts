import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/db/entities/common.ts';
import { SEARCH_ATTRIBUTE_KEYS } from '../../src/temporal/search-attributes.ts';
import { expectError } from '../support/agent.ts';
import { chargesOf, ledgerOf, listWithLeads, settledJob } from '../support/enrichment/helpers.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { expectEndedOnJobGone } from '../support/job-gone.ts';
import { hunterPersonKey } from '../support/providers/index.ts';

const BATCH = 4;
let world: EnrichmentWorld;
let h: Harness;

beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 72 });
  h = await startHarness({ env: { ...world.env, ENRICHMENT_BATCH_SIZE: String(BATCH) }, worker: true, deps: withFastProviders });
});
afterAll(async () => {
  await h?.stop();
  await world?.stop();
});
beforeEach(() => world.providers.resetAll());

let phones = 0;
const nextPhone = () => `+1212555${String(1000 + ++phones).padStart(4, '0')}`;

type Agent = Awaited<ReturnType<Harness['signup']>>['agent'];

async function startBulk(agent: Agent, listId: string, fields?: string[]) {
  const res = await agent.post('/api/enrichment/bulk', fields ? { listId, fields } : { listId });
  if (res.status !== 201) throw new Error(`bulk: ${res.status} ${res.text}`);
  return res.body as { jobId: string; status: string; totalLeads: number; estimatedCredits: number };
}

/** A lead whose profile PDL knows with all three fields verified. */
function fullProfile(prefix: string) {
  const url = world.profile(prefix);
  const data = { workEmail: world.mailbox(MAIL.company), personalEmail: world.mailbox(MAIL.personal), phone: nextPhone() };
  world.providers.pdl.fixtures.people.set(url, {
    first_name: 'Full',
    work_email: data.workEmail,
    personal_emails: [data.personalEmail],
    mobile_phone: data.phone,
  });
  return { url, ...data };
}

describe('bulk enrichment', () => {
  it('charges a mixed list exactly what its verified finds are worth and writes them onto the leads', async () => {
    const { agent, organizationId } = await h.signup({ credits: 50 });
    const full = fullProfile('mixed-full');
    const workOnly = world.profile('mixed-work');
    const workOnlyEmail = world.mailbox(MAIL.other);
    world.providers.pdl.fixtures.people.set(workOnly, { first_name: 'W', work_email: workOnlyEmail });
    const lushaOnly = world.profile('mixed-lusha');
    const lushaPersonal = world.mailbox(MAIL.personal);
    const lushaPhone = nextPhone();
    world.providers.lusha.fixtures.people.set(lushaOnly, {
      emailAddresses: [{ email: lushaPersonal, emailType: 'personal' }],
      phoneNumbers: [{ number: lushaPhone, phoneType: 'mobile' }],
    });
    const hunterEmail = world.mailbox(MAIL.company);
    world.providers.hunter.fixtures.findings.set(hunterPersonKey('Hugo', 'Name', MAIL.company), { email: hunterEmail });
    const unknown = world.profile('mixed-unknown');
    const unverified = world.profile('mixed-unverified');
    world.providers.pdl.fixtures.people.set(unverified, { first_name: 'U', work_email: world.nobody(MAIL.company) });
    world.providers.lusha.fixtures.people.set(unverified, { phoneNumbers: [{ number: nextPhone(), phoneType: 'mobile', doNotCall: true }] });
    const phoneOnly = world.profile('mixed-phone');
    const phoneOnlyNumber = nextPhone();
    world.providers.pdl.fixtures.people.set(phoneOnly, { first_name: 'Ph', phone_numbers: [phoneOnlyNumber] });
    const hasEmail = world.profile('mixed-has-email');
    const hasEmailPhone = nextPhone();
    world.providers.pdl.fixtures.people.set(hasEmail, { first_name: 'He', mobile_phone: hasEmailPhone });

    // [lead input, expected charges by field, expected values afterwards]
    const cases: Array<[Record<string, string | null>, Record<string, number>, Record<string, string | null>]> = [
      [{ networkUrl: full.url }, { workEmail: -1, personalEmail: -1, phone: -2 }, { workEmail: full.workEmail, personalEmail: full.personalEmail, phone: full.phone }],
      [{ networkUrl: workOnly }, { workEmail: -1 }, { workEmail: workOnlyEmail, personalEmail: null, phone: null }],
      [{ networkUrl: lushaOnly }, { personalEmail: -1, phone: -2 }, { workEmail: null, personalEmail: lushaPersonal, phone: lushaPhone }],
      [{ firstName: 'Hugo', lastName: 'Name', companyDomain: MAIL.company }, { workEmail: -1 }, { workEmail: hunterEmail, personalEmail: null, phone: null }],
      [{ networkUrl: unknown }, {}, { workEmail: null, personalEmail: null, phone: null }],
      [{ firstName: 'No', company: 'Where' }, {}, { workEmail: null, personalEmail: null, phone: null }],
      [{ networkUrl: unverified }, {}, { workEmail: null, personalEmail: null, phone: null }],
      // The same profile again: paid for by this job a batch earlier, so it comes from the cache for nothing.
      [{ networkUrl: full.url }, {}, { workEmail: full.workEmail, personalEmail: full.personalEmail, phone: full.phone }],
      [{ networkUrl: phoneOnly }, { phone: -2 }, { workEmail: null, personalEmail: null, phone: phoneOnlyNumber }],
      [{ networkUrl: hasEmail, workEmail: 'kept@acme.test' }, { phone: -2 }, { workEmail: 'kept@acme.test', personalEmail: null, phone: hasEmailPhone }],
    ];
    // The API skips a profile the list holds (CONTRACT §15), but a list can still hold one twice (scrape syncs of two
    // rows finding the same person): the repeat is stored in SQL, between the leads before and after it.
    const repeat = cases.findIndex(([input], i) => i > 0 && input.networkUrl === full.url);
    const { listId, leadIds } = await listWithLeads(agent, cases.slice(0, repeat).map(([input]) => input));
    const repeatId = newId();
    await h.sql(`insert into lead (id, organization_id, list_id, network_url, source, created_at, updated_at) values (?, ?, ?, ?, 'manual', now(), now())`, [
      repeatId,
      organizationId,
      listId,
      full.url,
    ]);
    const rest = await agent.post(`/api/lists/${listId}/leads`, { leads: cases.slice(repeat + 1).map(([input]) => input) });
    leadIds.push(repeatId, ...rest.body.leads.map((lead: { id: string }) => lead.id));

    const created = await startBulk(agent, listId);
    expect(created).toEqual({ jobId: expect.any(String), status: 'pending', totalLeads: 10, estimatedCredits: 40 });
    const job = await settledJob(agent, created.jobId);
    const expectedCredits = cases.reduce((sum, [, charges]) => sum - Object.values(charges).reduce((a, b) => a + b, 0), 0);
    expect(expectedCredits).toBe(13);
    expect(job).toMatchObject({
      jobId: created.jobId,
      listId,
      status: 'completed',
      fields: ['workEmail', 'personalEmail', 'phone'],
      totalLeads: 10,
      processedLeads: 10,
      successCount: 7,
      failedCount: 3,
      skippedCount: 0,
      creditsUsed: 13,
      estimatedCredits: 40,
      stopReason: null,
      failureReason: null,
    });
    expect(job.completedAt).not.toBeNull();

    // Ledger row by row: exactly the expected datum keys, once each.
    const ledger = await ledgerOf(h, organizationId);
    const expectedCharges = new Map(
      cases.flatMap(([, charges], i) => Object.entries(charges).map(([field, delta]) => [`${created.jobId}:${leadIds[i]}:${field}`, delta] as const)),
    );
    expect(chargesOf(ledger.rows)).toEqual(expectedCharges);
    expect(ledger.balance).toBe(50 - 13);
    expect(ledger.sum).toBe(ledger.balance);

    const leads = await agent.get(`/api/lists/${listId}/leads?limit=100`);
    // Only leads that received something count as enriched (the cached duplicate, lead 7, did).
    cases.forEach(([, charges, values], i) => {
      const lead = leads.body.data[i];
      expect(lead.id).toBe(leadIds[i]);
      expect({ workEmail: lead.workEmail, personalEmail: lead.personalEmail, phone: lead.phone }, `lead ${i}`).toEqual(values);
      expect(lead.enrichedAt !== null, `lead ${i} enrichedAt`).toBe(Object.keys(charges).length > 0 || i === 7);
    });
    // The lead without a profile URL or a name to search by cost no provider call at all.
    expect(world.providers.hunter.requests.filter((r) => r.query.first_name === 'No')).toEqual([]);

    const description = await h.temporal.workflow.getHandle(`enrichment-${created.jobId}`).describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.OrganizationId)).toBe(organizationId);
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.JobKind)).toBe('enrichment');
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTE_KEYS.ListId)).toBe(listId);
  });

  it('enriches only the requested fields and estimates leads × their credits', async () => {
    const { agent, organizationId } = await h.signup({ credits: 50 });
    const people = [fullProfile('phones'), fullProfile('phones'), fullProfile('phones')];
    const { listId, leadIds } = await listWithLeads(agent, people.map((p) => ({ networkUrl: p.url })));

    const created = await startBulk(agent, listId, ['phone', 'phone']);
    expect(created.estimatedCredits).toBe(6);
    const job = await settledJob(agent, created.jobId);
    expect(job).toMatchObject({ status: 'completed', fields: ['phone'], creditsUsed: 6, successCount: 3 });
    expect(chargesOf((await ledgerOf(h, organizationId)).rows)).toEqual(new Map(leadIds.map((id) => [`${created.jobId}:${id}:phone`, -2])));
    const leads = (await agent.get(`/api/lists/${listId}/leads`)).body.data;
    expect(leads.map((l: { phone: string; workEmail: string | null }) => [l.phone, l.workEmail])).toEqual(people.map((p) => [p.phone, null]));

    const emails = await startBulk(agent, listId, ['personalEmail', 'workEmail']);
    expect(emails.estimatedCredits).toBe(6);
    expect((await settledJob(agent, emails.jobId)).fields).toEqual(['workEmail', 'personalEmail']);
  });

  it("lists the organization's jobs newest first, of one list on request, and never another organization's", async () => {
    const { agent } = await h.signup({ credits: 20 });
    const first = await listWithLeads(agent, [{ networkUrl: world.profile('listed') }]);
    const second = await listWithLeads(agent, [{ networkUrl: world.profile('listed') }, { networkUrl: world.profile('listed') }]);
    const a = await startBulk(agent, first.listId, ['workEmail']);
    await settledJob(agent, a.jobId);
    const b = await startBulk(agent, second.listId, ['workEmail']);
    const done = await settledJob(agent, b.jobId);

    const all = await agent.get('/api/enrichment/bulk');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 2, page: 1, limit: 20, totalPages: 1 });
    expect(all.body.data.map((j: { jobId: string }) => j.jobId)).toEqual([b.jobId, a.jobId]);
    expect(all.body.data[0]).toEqual(done);
    const ofFirst = await agent.get(`/api/enrichment/bulk?listId=${first.listId}&limit=1`);
    expect(ofFirst.body).toMatchObject({ total: 1, totalPages: 1, data: [{ jobId: a.jobId, listId: first.listId }] });

    const { agent: stranger } = await h.signup();
    expect((await stranger.get('/api/enrichment/bulk')).body).toMatchObject({ data: [], total: 0, totalPages: 0 });
    expectError(await agent.get('/api/enrichment/bulk?listId=nope'), 400, 'validation_error');
    expectError(await agent.get('/api/enrichment/bulk?limit=101'), 400, 'validation_error');
  });

  it('validates the request: fields, list ownership, balance and an empty list', async () => {
    const { agent } = await h.signup({ credits: 5 });
    const { listId } = await listWithLeads(agent, [{ networkUrl: world.profile('validate') }]);
    expectError(await agent.post('/api/enrichment/bulk', { listId, fields: ['fax'] }), 400, 'validation_error');
    expectError(await agent.post('/api/enrichment/bulk', { listId, fields: [] }), 400, 'validation_error');
    expectError(await agent.post('/api/enrichment/bulk', { listId: 'not-a-uuid' }), 400, 'validation_error');
    expectError(await agent.post('/api/enrichment/bulk', {}), 400, 'validation_error');

    const other = await h.signup({ credits: 5 });
    expectError(await other.agent.post('/api/enrichment/bulk', { listId }), 404, 'not_found');
    const created = await startBulk(agent, listId);
    expectError(await other.agent.get(`/api/enrichment/bulk/${created.jobId}`), 404, 'not_found');
    expectError(await agent.get(`/api/enrichment/bulk/${crypto.randomUUID()}`), 404, 'not_found');

    const broke = await h.signup();
    const { listId: brokeList } = await listWithLeads(broke.agent, [{ networkUrl: world.profile('broke') }]);
    expectError(await broke.agent.post('/api/enrichment/bulk', { listId: brokeList }), 402, 'insufficient_credits');

    const empty = await agent.post('/api/lists', { name: 'empty' });
    expect(expectError(await agent.post('/api/enrichment/bulk', { listId: empty.body.id }), 422, 'unprocessable').details).toEqual({ reason: 'empty_list' });
    await settledJob(agent, created.jobId);
  });

  it('stops when the credits run out: the rest is skipped, nothing goes negative', async () => {
    const { agent, organizationId } = await h.signup({ credits: 5 });
    const people = Array.from({ length: 6 }, () => {
      const url = world.profile('runs-out');
      const data = { workEmail: world.mailbox(MAIL.company), phone: nextPhone() };
      world.providers.pdl.fixtures.people.set(url, { first_name: 'R', work_email: data.workEmail, mobile_phone: data.phone });
      return { url, ...data };
    });
    const { listId, leadIds } = await listWithLeads(agent, people.map((p) => ({ networkUrl: p.url })));

    const created = await startBulk(agent, listId);
    const job = await settledJob(agent, created.jobId);
    // Lead 1: 1 + 2 (balance 2); lead 2: work email 1 (balance 1), its phone cannot be paid: stop.
    expect(job).toMatchObject({
      status: 'completed',
      stopReason: 'insufficient_credits',
      processedLeads: 2,
      successCount: 2,
      failedCount: 0,
      skippedCount: 4,
      creditsUsed: 4,
    });
    const ledger = await ledgerOf(h, organizationId);
    expect(ledger.balance).toBe(1);
    expect(ledger.sum).toBe(1);
    expect(chargesOf(ledger.rows)).toEqual(
      new Map([
        [`${created.jobId}:${leadIds[0]}:workEmail`, -1],
        [`${created.jobId}:${leadIds[0]}:phone`, -2],
        [`${created.jobId}:${leadIds[1]}:workEmail`, -1],
      ]),
    );
    const leads = (await agent.get(`/api/lists/${listId}/leads`)).body.data;
    expect(leads.map((l: { workEmail: string | null; phone: string | null }) => [l.workEmail, l.phone])).toEqual([
      [people[0]!.workEmail, people[0]!.phone],
      [people[1]!.workEmail, null],
      [null, null],
      [null, null],
      [null, null],
      [null, null],
    ]);
    // The job stopped within its first batch: leads after it were never looked up.
    expect(new Set(world.providers.pdl.requests.map((r) => r.query.profile))).toEqual(new Set(people.slice(0, BATCH).map((p) => p.url)));
  });

  it('two jobs sharing one balance never take it below zero, and the ledger sums to it', async () => {
    const { agent, organizationId } = await h.signup({ credits: 21 });
    const lists = await Promise.all(
      [0, 1].map(() => listWithLeads(agent, Array.from({ length: 10 }, () => ({ networkUrl: fullProfile('shared').url })))),
    );
    const jobs = await Promise.all(lists.map(({ listId }) => startBulk(agent, listId)));
    const [a, b] = await Promise.all(jobs.map((j) => settledJob(agent, j.jobId)));
    const ledger = await ledgerOf(h, organizationId);
    expect(ledger.balance).toBeGreaterThanOrEqual(0);
    expect(ledger.balance).toBeLessThan(2);
    expect(ledger.sum).toBe(ledger.balance);
    expect(a.creditsUsed + b.creditsUsed).toBe(21 - ledger.balance);
    expect([a.stopReason, b.stopReason]).toEqual(['insufficient_credits', 'insufficient_credits']);
    // Every charge belongs to one lead field of one of the jobs, and matches what that lead received.
    const charges = chargesOf(ledger.rows);
    let written = 0;
    for (const [i, { listId, leadIds }] of lists.entries()) {
      const leads = (await agent.get(`/api/lists/${listId}/leads`)).body.data as Array<Record<string, string | null>>;
      leads.forEach((lead, k) => {
        for (const field of ['workEmail', 'personalEmail', 'phone']) {
          const charged = charges.has(`${jobs[i]!.jobId}:${leadIds[k]}:${field}`);
          expect(lead[field] !== null, `${field} of lead ${k} in list ${i}`).toBe(charged);
          if (charged) written++;
        }
      });
    }
    expect(written).toBe(charges.size);
  });

  it('shows counts and credits while it runs', async () => {
    const { agent } = await h.signup({ credits: 100 });
    const people = Array.from({ length: 16 }, () => fullProfile('live'));
    const { listId } = await listWithLeads(agent, people.map((p) => ({ networkUrl: p.url })));
    world.providers.pdl.setMode({ kind: 'delay', ms: 400 });
    const created = await startBulk(agent, listId);
    const midway = await eventually(
      () => agent.get(`/api/enrichment/bulk/${created.jobId}`),
      (r) => r.body.status === 'completed' || (r.body.processedLeads > 0 && r.body.processedLeads < 16),
      { what: `bulk enrichment job ${created.jobId} midway` },
    );
    expect(midway.body).toMatchObject({ status: 'processing' });
    expect(midway.body.creditsUsed).toBe(midway.body.processedLeads * 4);
    world.providers.pdl.setMode({ kind: 'normal' });
    expect(await settledJob(agent, created.jobId)).toMatchObject({ status: 'completed', processedLeads: 16, creditsUsed: 64 });
  });

  it('fails the job with the provider’s reason when a key is rejected', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const { listId } = await listWithLeads(agent, [{ networkUrl: fullProfile('rejected').url }]);
    world.providers.pdl.setMode({ kind: 'bad-key' });
    const created = await startBulk(agent, listId);
    const job = await settledJob(agent, created.jobId);
    expect(job.status).toBe('failed');
    expect(job.failureReason).toMatch(/enrichment provider cannot be used: pdl rejected the API key/);
    expect(job.failureReason).not.toContain(world.providers.keys.PDL_API_KEY);
  });

  it('ends failed with its reason and its enrichment.failed event when an operator cancels it mid-batch', async () => {
    const { agent, organizationId } = await h.signup({ credits: 100 });
    const { listId } = await listWithLeads(agent, [{ networkUrl: fullProfile('cancel').url }]);
    world.providers.pdl.setMode({ kind: 'held' });
    const created = await startBulk(agent, listId);
    await eventually(() => world.providers.pdl.inFlight, (n) => n > 0, { what: 'a PDL request in flight' });
    await h.temporal.workflow.getHandle(`enrichment-${created.jobId}`).cancel();
    const job = await settledJob(agent, created.jobId);
    world.providers.pdl.release();
    expect(job).toMatchObject({ status: 'failed', failureReason: 'cancelled by an operator' });
    // The event follows the failure in the workflow's tail.
    const events = await eventually(() => h.sql('select type from webhook_event where job_id = ?', [created.jobId]), (rows) => rows.length > 0, {
      what: `an event of bulk enrichment job ${created.jobId}`,
    });
    expect(events).toEqual([{ type: 'enrichment.failed' }]);
    const { sum, balance } = await ledgerOf(h, organizationId);
    expect(sum).toBe(balance);
  });

  it('ends quietly when its list (and so the job) is deleted between batches', async () => {
    const { agent, organizationId } = await h.signup({ credits: 100 });
    const people = Array.from({ length: 16 }, () => fullProfile('gone'));
    const { listId } = await listWithLeads(agent, people.map((p) => ({ networkUrl: p.url })));
    world.providers.pdl.setMode({ kind: 'delay', ms: 400 });
    const created = await startBulk(agent, listId);
    await eventually(
      () => agent.get(`/api/enrichment/bulk/${created.jobId}`),
      (r) => r.body.processedLeads > 0,
      { what: `bulk enrichment job ${created.jobId} under way` },
    );
    expect((await agent.delete(`/api/lists/${listId}`)).status).toBe(204);
    await expectEndedOnJobGone(h, `enrichment-${created.jobId}`);
    expectError(await agent.get(`/api/enrichment/bulk/${created.jobId}`), 404, 'not_found');
    // What the committed batches charged stands; the ledger still sums to the balance.
    const { sum, balance } = await ledgerOf(h, organizationId);
    expect(sum).toBe(balance);
  });
});
