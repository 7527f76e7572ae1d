/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { listWithLeads, settledJob } from '../support/enrichment/helpers.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { allResults, inStage, startJob, waitForJob } from '../support/verification.ts';

let world: EnrichmentWorld;
let h: Harness;

beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 83 });
  h = await startHarness({ env: world.env, worker: true, deps: withFastProviders });
});
afterAll(async () => {
  await h?.stop();
  await world?.stop();
});
beforeEach(() => world.providers.resetAll());

/** A profile PDL knows with a work email that exists on the company's mail host. */
function knownPerson(prefix: string, firstName: string) {
  const url = world.profile(prefix);
  const workEmail = world.mailbox(MAIL.company);
  world.providers.pdl.fixtures.people.set(url, { first_name: firstName, work_email: workEmail });
  return { url, workEmail };
}

const csvRows = (text: string) => parse(text) as string[][];

describe('the pipeline closes (CONTRACT §15)', () => {
  it('a list without emails, enriched, gets its found work emails as emails, Valid; a verification job then checks them', { timeout: 120_000 }, async () => {
    const { agent } = await h.signup({ credits: 50 });
    const ann = knownPerson('pipe-ann', 'Ann');
    const bob = knownPerson('pipe-bob', 'Bob');
    const kept = knownPerson('pipe-kept', 'Kim');
    const keptEmail = world.nobody(MAIL.other);
    const { listId, leadIds } = await listWithLeads(agent, [
      { networkUrl: ann.url, firstName: 'Ann', lastName: 'Lee', company: 'Acme', title: 'CTO', phone: '+1 415 555 0100' },
      { networkUrl: bob.url, firstName: 'Bob' },
      { networkUrl: kept.url, email: keptEmail },
      { networkUrl: world.profile('pipe-unknown') },
      { email: `someone@${MAIL.catchAll}`, firstName: 'Cat', company: '=cmd|x!A0' },
    ]);

    // Before enrichment only two leads have an address to verify.
    const bulk = await agent.post('/api/enrichment/bulk', { listId, fields: ['workEmail'] });
    expect(bulk.status).toBe(201);
    const job = await settledJob(agent, bulk.body.jobId);
    expect(job).toMatchObject({ status: 'completed', successCount: 3 });

    const leads = new Map(((await agent.get(`/api/lists/${listId}/leads`)).body.data as any[]).map((l) => [l.id, l]));
    const [annLead, bobLead, keptLead, unknownLead] = leadIds.map((id) => leads.get(id));
    expect(annLead).toMatchObject({ email: ann.workEmail, workEmail: ann.workEmail, emailStatus: 'Valid' });
    expect(annLead.emailVerifiedAt).toEqual(annLead.enrichedAt);
    expect(bobLead).toMatchObject({ email: bob.workEmail, workEmail: bob.workEmail, emailStatus: 'Valid' });
    // A lead with an email keeps it; the found one is its work email only.
    expect(keptLead).toMatchObject({ email: keptEmail, workEmail: kept.workEmail, emailStatus: null });
    expect(unknownLead).toMatchObject({ email: null, emailStatus: null });

    const verification = await startJob(agent, listId, 'smtp_only');
    expect(verification.totalEmails).toBe(4);
    await waitForJob(agent, verification.id, inStage('completed'));
    const results = new Map((await allResults(agent, verification.id)).map((r: any) => [r.email, r.result]));
    expect(results).toEqual(
      new Map([
        [ann.workEmail, 'Valid'],
        [bob.workEmail, 'Valid'],
        [keptEmail, 'Invalid'],
        [`someone@${MAIL.catchAll}`, 'Catch-All'],
      ]),
    );

    // Downloads people can use: the segment asked for, the lead's columns, named after the list, phones untouched.
    const segment = await agent.get(`/api/verification/jobs/${verification.id}/results/download?result=Valid,Catch-All&columns=lead`);
    expect(segment.status).toBe(200);
    const listName = (await agent.get(`/api/lists/${listId}`)).body.name as string;
    expect(segment.headers.get('content-disposition')).toContain(`filename="${listName}-verification.csv"`);
    const [header, ...rows] = csvRows(segment.text);
    expect(header!.slice(-7)).toEqual(['catch_all_score', 'first_name', 'last_name', 'company', 'title', 'network_url', 'phone']);
    const byEmail = new Map(rows.map((r) => [r[0], r]));
    expect([...byEmail.keys()].sort()).toEqual([ann.workEmail, bob.workEmail, `someone@${MAIL.catchAll}`].sort());
    expect(byEmail.get(ann.workEmail)!.slice(-6)).toEqual(['Ann', 'Lee', 'Acme', 'CTO', ann.url, '+14155550100']);
    expect(byEmail.get(`someone@${MAIL.catchAll}`)!.slice(-6)).toEqual(['Cat', '', "'=cmd|x!A0", '', '', '']);

    const invalid = csvRows((await agent.get(`/api/verification/jobs/${verification.id}/results/download?result=Invalid`)).text);
    expect(invalid.slice(1).map((r) => r[0])).toEqual([keptEmail]);
    expect(invalid[0]).toHaveLength(12);
    // A score bound keeps the other types whole and bounds the Catch-All ones.
    const score = Number(byEmail.get(`someone@${MAIL.catchAll}`)![11]);
    const outside = score > 0 ? `maxScore=${score - 1}` : `minScore=${score + 1}`;
    const below = csvRows((await agent.get(`/api/verification/jobs/${verification.id}/results/download?result=Valid,Catch-All&${outside}`)).text);
    expect(below.slice(1).map((r) => r[0]).sort()).toEqual([ann.workEmail, bob.workEmail].sort());
    const all = csvRows((await agent.get(`/api/verification/jobs/${verification.id}/results/download`)).text);
    expect(all).toHaveLength(5);
    for (const bad of ['result=Valid,Maybe', 'result=', 'columns=all', 'minScore=5&maxScore=2']) {
      expectError(await agent.get(`/api/verification/jobs/${verification.id}/results/download?${bad}`), 400, 'validation_error');
    }

    // The credits charged show in the usage of this month.
    const usage = (await agent.get('/api/usage')).body.months.at(-1);
    expect(usage.credits).toEqual({ workEmail: 3, personalEmail: 0, phone: 0, total: 3 });
    expect(usage.jobs).toEqual({ verification: 1, scrape: 0, enrichment: 1 });
  });

  it('single enrichment fills the organization’s leads of that profile that have no email', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const person = knownPerson('pipe-single', 'Sam');
    const { listId, leadIds } = await listWithLeads(agent, [{ networkUrl: person.url }]);
    const withEmail = await listWithLeads(agent, [{ networkUrl: person.url, email: 'sam@elsewhere.test' }]);
    const res = await agent.post('/api/enrichment/enrich', { networkUrl: person.url });
    expect(res.body).toMatchObject({ success: true, creditsUsed: 1 });
    expect((await agent.get(`/api/leads/${leadIds[0]}`)).body).toMatchObject({ email: person.workEmail, workEmail: person.workEmail, emailStatus: 'Valid' });
    expect((await agent.get(`/api/leads/${withEmail.leadIds[0]}`)).body).toMatchObject({ email: 'sam@elsewhere.test', workEmail: null, emailStatus: null });
    expect((await agent.get(`/api/lists/${listId}`)).body.leadCount).toBe(1);
  });
});

describe('POST /api/verification/verify (CONTRACT §15)', () => {
  it('answers one address with a session exactly as the external route does with a key', async () => {
    const { agent } = await h.signup();
    const address = world.mailbox(MAIL.company);
    const session = await agent.post('/api/verification/verify', { email: address, timeoutMs: 5000 });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ email: address, result: 'Valid', domain: MAIL.company, cached: false, retryAfterSeconds: null });
    const { key } = await createKey(agent, ['verification:write']);
    const external = await new Agent(h.app).post('/api/external/verify', { email: address, timeoutMs: 5000 }, { 'x-api-key': key });
    expect(Object.keys(external.body).sort()).toEqual(Object.keys(session.body).sort());
    // One implementation: the key's organization reuses the session's check.
    expect(external.body).toEqual({ ...session.body, cached: true });

    expectError(await agent.post('/api/verification/verify', { email: address, timeoutMs: 10 }), 400, 'validation_error');
    expectError(await new Agent(h.app).post('/api/verification/verify', { email: address }), 401, 'unauthorized');
    expectError(await new Agent(h.app).post('/api/verification/verify', { email: address }, { 'x-api-key': key }), 401, 'unauthorized');
  });
});
