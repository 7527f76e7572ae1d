/* eslint-disable @typescript-eslint/no-explicit-any -- API bodies are asserted field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { createKey } from '../support/auth-cases.ts';
import { chargesOf, ledgerOf, listWithLeads, settledJob } from '../support/enrichment/helpers.ts';
import { withFastProviders } from '../support/enrichment/world.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { type MailWorld, mailWorldEnv, startMailWorld } from '../support/mail-world/index.ts';
import { startProviderServers, type ProviderServers } from '../support/providers/index.ts';
import { startJob, waitForJob } from '../support/verification.ts';

const ip = (n: number) => `127.0.81.${n}`;
const at = (domain: string, ...locals: string[]) => locals.map((l) => `${l}@${domain}`);

let mail: MailWorld;
let providers: ProviderServers;
let h: Harness;

beforeAll(async () => {
  mail = await startMailWorld({
    domains: {
      'firstlast.test': {
        mx: [{ host: 'mx.firstlast.test', preference: 10, ip: ip(1), behaviour: { mailboxes: at('firstlast.test', 'jane.doe', 'jose.garcia', 'zoe.muller', 'sean.obrien', 'ava.stone'), starttls: false } }],
      },
      'flast.test': { mx: [{ host: 'mx.flast.test', preference: 10, ip: ip(2), behaviour: { mailboxes: at('flast.test', 'alee', 'bray', 'ctan', 'dkim'), starttls: false } }] },
      'acceptall.finder.test': { mx: [{ host: 'mx.acceptall.finder.test', preference: 10, ip: ip(3), behaviour: { catchAll: true, starttls: false } }] },
      'greylist.test': {
        mx: [{ host: 'mx.greylist.test', preference: 10, ip: ip(4), behaviour: { mailboxes: at('greylist.test', 'jane.doe'), greylistForMs: 500, starttls: false } }],
      },
      // A slow host, so three finds started together overlap there.
      'team.test': {
        mx: [{ host: 'mx.team.test', preference: 10, ip: ip(5), behaviour: { mailboxes: at('team.test', 'ann.lee', 'bo.ray', 'cy.tan', 'ben'), latencyMs: 60, starttls: false } }],
      },
    },
  });
  providers = await startProviderServers();
  h = await startHarness({
    worker: true,
    deps: withFastProviders,
    env: {
      ...mailWorldEnv(mail, { SMTP_PROBE_TIMEOUT_MS: '2000', SMTP_GREYLIST_SCHEDULE: '1s,2s' }),
      ...providers.urls,
      ...providers.keys,
      SMTP_CANARY_DOMAINS: '',
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST: '1000000',
    },
  });
  // The global order sums every domain's learned templates, and other test files teach theirs to the same
  // database: a prior this large keeps this file's unknown domains on first.last, as a fresh service's default.
  await h.sql(
    `insert into domain_template_share (domain, template, valid_count, updated_at) values ('global-prior.finder.test', 'first.last', 1000000000, now())`,
  );
});
afterAll(async () => {
  await h?.stop();
  await providers?.close();
  await mail?.stop();
});

const host = (name: string) => mail.servers[name]!.stats;
/** What a host saw from now on: sessions opened and RCPTs asked. */
function watch(name: string) {
  const stats = host(name);
  const sessions = stats.sessions;
  const rcpts = stats.rcpts.length;
  return () => ({ sessions: stats.sessions - sessions, rcpts: stats.rcpts.slice(rcpts) });
}
const RANDOM_PROBE = /^[a-z]{24}@/;

async function find(agent: Agent, firstName: string, lastName: string, domain: string) {
  return agent.post('/api/enrichment/find-email', { firstName, lastName, domain });
}

describe('POST /api/enrichment/find-email', () => {
  it('finds first.last first on a first.last domain: one session, one RCPT once the domain is known', async () => {
    const { agent, organizationId } = await h.signup({ credits: 5 });
    const first = watch('mx.firstlast.test');
    const res = await find(agent, 'Jane', 'Doe', 'https://www.FirstLast.test/about');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      email: 'jane.doe@firstlast.test',
      result: 'Valid',
      catchAllScore: null,
      template: 'first.last',
      candidatesTried: [{ email: 'jane.doe@firstlast.test', template: 'first.last', via: 'rcpt', result: 'Valid', reply: expect.stringMatching(/^250/) }],
      creditsUsed: 1,
    });
    // The first find at the domain also asks its catch-all question, in the same session.
    expect(first()).toEqual({ sessions: 1, rcpts: [expect.stringMatching(RANDOM_PROBE), 'jane.doe@firstlast.test'] });

    const second = watch('mx.firstlast.test');
    const jose = await find(agent, 'José', 'García', 'firstlast.test');
    expect(jose.body).toMatchObject({ email: 'jose.garcia@firstlast.test', result: 'Valid', creditsUsed: 1 });
    expect(second()).toEqual({ sessions: 1, rcpts: ['jose.garcia@firstlast.test'] });

    const ledger = await ledgerOf(h, organizationId);
    expect([...chargesOf(ledger.rows).values()]).toEqual([-1, -1]);
    expect(ledger.rows.filter((r) => r.delta < 0).every((r) => /^find:[0-9a-f-]{36}:workEmail$/.test(r.idempotency_key) && r.ref_type === 'email_find')).toBe(true);
    expect(ledger.balance).toBe(3);
  });

  it("tries flast first on a domain whose Valid addresses taught it flast", async () => {
    const { agent } = await h.signup({ credits: 5 });
    const { listId } = await listWithLeads(agent, [
      { firstName: 'Ann', lastName: 'Lee', email: 'alee@flast.test' },
      { firstName: 'Bob', lastName: 'Ray', email: 'bray@flast.test' },
      { firstName: 'Cy', lastName: 'Tan', email: 'ctan@flast.test' },
    ]);
    const job = await startJob(agent, listId, 'smtp_only');
    await waitForJob(agent, job.id, (j) => j.verificationStage === 'completed');
    await eventually(() => h.sql(`select valid_count from domain_template_share where domain = 'flast.test' and template = 'flast'`), (rows) => rows[0]?.valid_count >= 3, {
      what: 'flast learned',
    });

    const seen = watch('mx.flast.test');
    const res = await find(agent, 'Dana', 'Kim', 'flast.test');
    expect(res.body).toMatchObject({ email: 'dkim@flast.test', result: 'Valid', template: 'flast', creditsUsed: 1 });
    expect(res.body.candidatesTried.map((c: any) => c.email)).toEqual(['dkim@flast.test']);
    const { sessions, rcpts } = seen();
    expect(sessions).toBe(1);
    expect(rcpts.filter((r) => !RANDOM_PROBE.test(r))).toEqual(['dkim@flast.test']);
  });

  it('asks no mailbox of a catch-all domain: the best candidate comes back Catch-All with its score, for 0 credits', async () => {
    const { agent, organizationId } = await h.signup({ credits: 5 });
    const seen = watch('mx.acceptall.finder.test');
    const res = await find(agent, 'Jane', 'Doe', 'acceptall.finder.test');
    expect(res.body).toEqual({ email: 'jane.doe@acceptall.finder.test', result: 'Catch-All', catchAllScore: 5, template: 'first.last', candidatesTried: [], creditsUsed: 0 });
    // Only the catch-all question: a random address.
    expect(seen().rcpts).toEqual([expect.stringMatching(RANDOM_PROBE)]);

    const again = watch('mx.acceptall.finder.test');
    expect((await find(agent, 'Max', 'Power', 'acceptall.finder.test')).body).toMatchObject({ email: 'max.power@acceptall.finder.test', result: 'Catch-All' });
    expect(again()).toEqual({ sessions: 0, rcpts: [] });
    expect((await ledgerOf(h, organizationId)).balance).toBe(5);
  });

  it('waits out greylisting in its workflow: 202 with the findId, then 200 once the host answers', async () => {
    const { agent, organizationId } = await h.signup({ credits: 5 });
    const res = await find(agent, 'Jane', 'Doe', 'greylist.test');
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ findId: expect.any(String) });
    const path = `/api/enrichment/find-email/${res.body.findId}`;
    const done = await eventually(() => agent.get(path), (r) => r.status === 200, { what: 'find answered', timeoutMs: 30_000, intervalMs: 200 });
    expect(done.body).toMatchObject({ email: 'jane.doe@greylist.test', result: 'Valid', template: 'first.last', creditsUsed: 1 });
    expect(done.body.candidatesTried[0]).toMatchObject({ email: 'jane.doe@greylist.test', result: 'Valid', reply: expect.stringMatching(/^250/) });
    expect((await agent.get(path)).body).toEqual(done.body);
    expect((await ledgerOf(h, organizationId)).balance).toBe(4);

    // Another organization cannot read it.
    const { agent: other } = await h.signup();
    expectError(await other.get(path), 404, 'not_found');
  });

  it('shares the host between three finds at once within its per-host limit', async () => {
    const { agent } = await h.signup({ credits: 5 });
    const seen = watch('mx.team.test');
    const people = [['Ann', 'Lee'], ['Bo', 'Ray'], ['Cy', 'Tan']] as const;
    const answers = await Promise.all(people.map(([f, l]) => find(agent, f, l, 'team.test')));
    expect(answers.map((a) => a.body.email)).toEqual(['ann.lee@team.test', 'bo.ray@team.test', 'cy.tan@team.test']);
    const stats = host('mx.team.test');
    expect(stats.maxConcurrentSessions).toBeLessThanOrEqual(Number(h.config.SMTP_PROBE_PER_DOMAIN));
    const { sessions, rcpts } = seen();
    expect(sessions).toBeLessThanOrEqual(3);
    expect(rcpts.filter((r) => !RANDOM_PROBE.test(r)).sort()).toEqual(['ann.lee@team.test', 'bo.ray@team.test', 'cy.tan@team.test']);
  });

  it('spells accents away and tries a compound name whole, then in part', async () => {
    const { agent } = await h.signup({ credits: 5 });
    const seen = watch('mx.firstlast.test');
    const res = await find(agent, 'Zoë', 'Müller-Lüdenscheidt', 'firstlast.test');
    expect(res.body).toMatchObject({ email: 'zoe.muller@firstlast.test', result: 'Valid' });
    expect(res.body.candidatesTried.map((c: any) => [c.email, c.result])).toEqual([
      ['zoe.mullerludenscheidt@firstlast.test', 'Invalid'],
      ['zoe.muller@firstlast.test', 'Valid'],
    ]);
    // In turn, in one session: the second asked only once the first was refused, none after the Valid one.
    expect(seen()).toEqual({ sessions: 1, rcpts: ['zoe.mullerludenscheidt@firstlast.test', 'zoe.muller@firstlast.test'] });
    expect((await find(agent, 'Seán', "O'Brien", 'firstlast.test')).body).toMatchObject({ email: 'sean.obrien@firstlast.test', result: 'Valid' });
  });

  it('answers nothing found for 0 credits after at most FINDER_MAX_CANDIDATES RCPTs', async () => {
    const { agent } = await h.signup({ credits: 5 });
    const seen = watch('mx.firstlast.test');
    const res = await find(agent, 'Nobody', 'Here', 'firstlast.test');
    expect(res.body).toMatchObject({ email: null, result: null, template: null, creditsUsed: 0 });
    expect(res.body.candidatesTried).toHaveLength(h.config.FINDER_MAX_CANDIDATES);
    expect(seen()).toEqual({ sessions: 1, rcpts: res.body.candidatesTried.map((c: any) => c.email) });
  });

  it('is offered to integrators with enrichment:write, and refuses bad input and an empty balance', async () => {
    const { agent } = await h.signup({ credits: 5 });
    const { key } = await createKey(agent, ['enrichment:write']);
    const res = await new Agent(h.app).post('/api/external/find-email', { firstName: 'Jane', lastName: 'Doe', domain: 'firstlast.test' }, { 'x-api-key': key });
    expect(res.body).toMatchObject({ email: 'jane.doe@firstlast.test', result: 'Valid', creditsUsed: 1 });
    for (const body of [{}, { firstName: 'A', lastName: 'B', domain: 'not a domain' }, { firstName: '', lastName: 'B', domain: 'x.test' }, { firstName: 'A', lastName: 'B', domain: 'x.test', extra: 1 }]) {
      expectError(await agent.post('/api/enrichment/find-email', body), 400, 'validation_error');
    }
    const { agent: broke } = await h.signup();
    expectError(await find(broke, 'Jane', 'Doe', 'firstlast.test'), 402, 'insufficient_credits');
  });
});

describe('the finder in the enrichment waterfall', () => {
  it('completes a lead without any paid provider, and asks the paid one only for a lead it did not complete; credits exact', async () => {
    const { agent, organizationId } = await h.signup({ credits: 10 });
    const found = `https://www.linkedin.com/in/ava-stone-${process.pid}`;
    const missed = `https://www.linkedin.com/in/ben-nobody-${process.pid}`;
    providers.pdl.fixtures.people.set(found, { first_name: 'Ava', work_email: 'ann.lee@team.test' });
    providers.pdl.fixtures.people.set(missed, { first_name: 'Ben', work_email: 'ben@team.test' });
    providers.resetAll();
    const { listId, leadIds } = await listWithLeads(agent, [
      { firstName: 'Ava', lastName: 'Stone', companyDomain: 'www.firstlast.test', networkUrl: found },
      { firstName: 'Ben', lastName: 'Nobody', companyDomain: 'firstlast.test', networkUrl: missed },
    ]);
    const started = await agent.post('/api/enrichment/bulk', { listId, fields: ['workEmail'] });
    expect(started.status).toBe(201);
    const job = await settledJob(agent, started.body.jobId);
    expect(job).toMatchObject({ status: 'completed', successCount: 2, creditsUsed: 2 });
    const leads = await h.sql(`select id, work_email from lead where list_id = ? order by id`, [listId]);
    expect(leads.map((l) => l.work_email)).toEqual(['ava.stone@firstlast.test', 'ben@team.test']);
    expect(leads.map((l) => l.id)).toEqual(leadIds);
    // PDL was asked about the lead the finder could not complete, and only about it.
    expect(providers.pdl.requests.map((r) => r.query.profile)).toEqual([expect.stringContaining('ben-nobody')]);
    expect(providers.hunter.requests).toHaveLength(0);
    expect(providers.lusha.requests).toHaveLength(0);
    const ledger = await ledgerOf(h, organizationId);
    expect([...chargesOf(ledger.rows).values()]).toEqual([-1, -1]);
    expect(ledger.balance).toBe(8);
  });

  it('lists the finder first in the waterfall and can be turned off like any provider', async () => {
    const { agent } = await h.signup({ credits: 5 });
    const settings = await agent.get('/api/settings/enrichment-providers');
    expect(settings.body.providers[0]).toEqual({ provider: 'finder', kind: 'finder', enabled: true, priority: 1, hasApiKey: false, hasPlatformKey: true });
    const off = await agent.put('/api/settings/enrichment-providers', { providers: [{ provider: 'finder', enabled: false }] });
    expect(off.body.providers.find((p: any) => p.provider === 'finder').enabled).toBe(false);
  });
});
