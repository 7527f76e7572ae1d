import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent, expectError } from '../support/agent.ts';
import { chargesOf, ledgerOf } from '../support/enrichment/helpers.ts';
import { MAIL, startEnrichmentWorld, withFastProviders, type EnrichmentWorld } from '../support/enrichment/world.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { hunterPersonKey } from '../support/providers/index.ts';

let world: EnrichmentWorld;
let h: Harness;

beforeAll(async () => {
  world = await startEnrichmentWorld({ ipBase: 71 });
  h = await startHarness({ env: world.env, worker: true, deps: withFastProviders });
});
afterAll(async () => {
  await h?.stop();
  await world?.stop();
});
beforeEach(() => world.providers.resetAll());

/** Requests each enrichment stand-in saw for `url` (Hunter is looked up by name, so all its requests count). */
function calls(url: string) {
  const { pdl, hunter, lusha } = world.providers;
  return {
    pdl: pdl.requests.filter((r) => r.query.profile === url).length,
    lusha: lusha.requests.filter((r) => r.query.linkedinUrl === url).length,
    hunter: hunter.requests.length,
  };
}

const phone = (n: number) => `+1415555${String(2000 + n).padStart(4, '0')}`;
let phones = 0;
const nextPhone = () => phone(++phones);

async function enrich(agent: Awaited<ReturnType<Harness['signup']>>['agent'], networkUrl: string) {
  return agent.post('/api/enrichment/enrich', { networkUrl });
}

describe('POST /api/enrichment/enrich', () => {
  it('returns verified data from the first provider that has everything, charges 1 + 1 + 2 and asks no further provider', async () => {
    const { agent, organizationId } = await h.signup({ credits: 10 });
    const url = world.profile('complete');
    const work = world.mailbox(MAIL.company);
    const personal = world.mailbox(MAIL.personal);
    const mobile = nextPhone();
    world.providers.pdl.fixtures.people.set(url, {
      first_name: 'jane',
      last_name: 'doe',
      job_title: 'VP Sales',
      job_company_name: 'Acme',
      work_email: work,
      personal_emails: [personal],
      mobile_phone: mobile,
    });

    // Any spelling of the profile URL is the same profile.
    const res = await enrich(agent, `http://linkedin.com/in/${url.split('/in/')[1]!.toUpperCase()}/?trk=share`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      profile: { networkUrl: url, firstName: 'Jane', lastName: 'Doe', title: 'VP Sales', company: 'Acme', workEmail: work, personalEmail: personal, phone: mobile },
      creditsUsed: 4,
      withheld: [],
    });
    expect(calls(url)).toEqual({ pdl: 1, lusha: 0, hunter: 0 });

    const ledger = await ledgerOf(h, organizationId);
    expect(ledger.balance).toBe(6);
    expect(ledger.sum).toBe(ledger.balance);
    const byField = Object.fromEntries([...chargesOf(ledger.rows)].map(([key, delta]) => [key.split(':').at(-1), delta]));
    expect(byField).toEqual({ workEmail: -1, personalEmail: -1, phone: -2 });
    expect(ledger.rows.filter((r) => r.delta < 0).every((r) => r.ref_type === 'enrichment_request')).toBe(true);
  });

  it('falls through the waterfall field by field: PDL has no match, Lusha has the person', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const url = world.profile('pdl-miss');
    const work = world.mailbox(MAIL.other);
    world.providers.lusha.fixtures.people.set(url, {
      firstName: 'Ann',
      lastName: 'Lee',
      emailAddresses: [{ email: work, emailType: 'work' }],
      phoneNumbers: [{ number: '+44 20 7946 0958', phoneType: 'direct' }],
    });

    const res = await enrich(agent, url);
    expect(res.body).toMatchObject({ success: true, creditsUsed: 3, profile: { firstName: 'Ann', workEmail: work, personalEmail: null, phone: '+442079460958' } });
    // PDL answered 404 (no match); without a name Hunter cannot be asked; Lusha was.
    expect(calls(url)).toEqual({ pdl: 1, lusha: 1, hunter: 0 });
  });

  it('keeps looking for what is still missing: names from PDL let Hunter find the work email, Lusha adds the phone', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const url = world.profile('chain');
    const work = world.mailbox(MAIL.company);
    const mobile = nextPhone();
    world.providers.pdl.fixtures.people.set(url, {
      first_name: 'Bo',
      last_name: 'Chain',
      job_company_website: `https://www.${MAIL.company}/about`,
      work_email: world.nobody(MAIL.company), // SMTP says the mailbox does not exist
    });
    world.providers.hunter.fixtures.findings.set(hunterPersonKey('Bo', 'Chain', MAIL.company), { email: work, verification: null });
    world.providers.lusha.fixtures.people.set(url, { phoneNumbers: [{ number: mobile, phoneType: 'mobile' }] });

    const res = await enrich(agent, url);
    expect(res.body).toMatchObject({ success: true, creditsUsed: 3, profile: { firstName: 'Bo', workEmail: work, personalEmail: null, phone: mobile } });
    // Hunter could only be asked with the name and domain PDL returned; each provider was asked once.
    expect(world.providers.hunter.requests.map((r) => r.query.domain)).toEqual([MAIL.company]);
    expect(calls(url)).toEqual({ pdl: 1, lusha: 1, hunter: 1 });
  });

  it('follows the organization’s order and skips disabled providers', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const url = world.profile('order');
    world.providers.pdl.fixtures.people.set(url, { first_name: 'P', work_email: world.mailbox(MAIL.company) });
    world.providers.lusha.fixtures.people.set(url, { firstName: 'L', emailAddresses: [{ email: world.mailbox(MAIL.other), emailType: 'work' }] });

    const put = await agent.put('/api/settings/enrichment-providers', {
      providers: [
        { provider: 'lusha', priority: 1 },
        { provider: 'pdl', priority: 2 },
        { provider: 'hunter', enabled: false },
      ],
    });
    expect(put.status).toBe(200);
    const res = await enrich(agent, url);
    expect(res.body.profile.firstName).toBe('L');
    // Lusha first; PDL still asked for what Lusha lacked (personal email, phone) but finds none of it.
    expect(world.providers.lusha.requests.length).toBe(1);
    expect(world.providers.pdl.requests.length).toBe(1);
    expect(res.body.creditsUsed).toBe(1);

    await agent.put('/api/settings/enrichment-providers', { providers: [{ provider: 'lusha', enabled: false }] });
    world.providers.resetAll();
    const other = world.profile('order');
    world.providers.lusha.fixtures.people.set(other, { emailAddresses: [{ email: world.mailbox(MAIL.other), emailType: 'work' }] });
    const res2 = await enrich(agent, other);
    expect(res2.body).toMatchObject({ success: false, profile: { networkUrl: other }, creditsUsed: 0 });
    expect(world.providers.lusha.requests.length).toBe(0);
  });

  it('never returns or charges unverified finds: catch-all and unknown mailboxes, invalid and do-not-call phones', async () => {
    const { agent, organizationId } = await h.signup({ credits: 10 });
    const url = world.profile('unverified');
    world.providers.pdl.fixtures.people.set(url, {
      first_name: 'Una',
      work_email: `someone@${MAIL.catchAll}`,
      personal_emails: [world.nobody(MAIL.personal), 'not-an-address'],
      phone_numbers: ['12345'],
    });
    world.providers.lusha.fixtures.people.set(url, {
      emailAddresses: [{ email: world.nobody(MAIL.other), emailType: 'work' }],
      phoneNumbers: [{ number: nextPhone(), phoneType: 'mobile', doNotCall: true }],
    });

    const res = await enrich(agent, url);
    expect(res.body).toEqual({
      success: true,
      profile: { networkUrl: url, firstName: 'Una', lastName: null, title: null, company: null, workEmail: null, personalEmail: null, phone: null },
      creditsUsed: 0,
      withheld: [],
    });
    const ledger = await ledgerOf(h, organizationId);
    expect(chargesOf(ledger.rows).size).toBe(0);
    expect(ledger.balance).toBe(10);
  });

  it('accepts the provider’s own verification: Hunter’s finder verdict, and Hunter’s verifier when SMTP cannot tell', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const url = world.profile('hunter-verified');
    const onCatchAll = `jo.v@${MAIL.catchAll}`;
    world.providers.pdl.fixtures.people.set(url, { first_name: 'Jo', last_name: 'V', job_company_website: MAIL.catchAll, personal_emails: [`jo.home@${MAIL.catchAll}`] });
    world.providers.hunter.fixtures.findings.set(hunterPersonKey('Jo', 'V', MAIL.catchAll), { email: onCatchAll, verification: 'valid' });
    world.providers.hunter.fixtures.verdicts.set(`jo.home@${MAIL.catchAll}`, 'valid');

    const res = await enrich(agent, url);
    expect(res.body).toMatchObject({ creditsUsed: 2, profile: { workEmail: onCatchAll, personalEmail: `jo.home@${MAIL.catchAll}` } });
    expect(world.providers.hunter.requests.map((r) => r.path).sort()).toEqual(['/v2/email-finder', '/v2/email-verifier']);
  });

  it('charges exactly what is found for every combination of fields', async () => {
    const { agent, organizationId } = await h.signup({ credits: 100 });
    const combos = [
      [false, false, false, 0],
      [true, false, false, 1],
      [false, true, false, 1],
      [false, false, true, 2],
      [true, true, false, 2],
      [true, false, true, 3],
      [false, true, true, 3],
      [true, true, true, 4],
    ] as const;
    let spent = 0;
    for (const [work, personal, mobile, credits] of combos) {
      const url = world.profile('combo');
      world.providers.pdl.fixtures.people.set(url, {
        first_name: 'Combo',
        work_email: work ? world.mailbox(MAIL.company) : world.nobody(MAIL.company),
        personal_emails: personal ? [world.mailbox(MAIL.personal)] : [],
        mobile_phone: mobile ? nextPhone() : null,
      });
      const res = await enrich(agent, url);
      expect(res.body.creditsUsed, JSON.stringify({ work, personal, mobile })).toBe(credits);
      expect([res.body.profile.workEmail !== null, res.body.profile.personalEmail !== null, res.body.profile.phone !== null]).toEqual([work, personal, mobile]);
      spent += credits;
    }
    const ledger = await ledgerOf(h, organizationId);
    expect(ledger.balance).toBe(100 - spent);
    expect(ledger.sum).toBe(ledger.balance);
    expect((await agent.get('/api/credits')).body).toEqual({ balance: 100 - spent });
  });

  it('answers a profile paid for within the cache window for 0 credits without calling any provider', async () => {
    const { agent, organizationId } = await h.signup({ credits: 10 });
    const url = world.profile('cached');
    world.providers.pdl.fixtures.people.set(url, { first_name: 'Cy', work_email: world.mailbox(MAIL.company), mobile_phone: nextPhone() });

    const first = await enrich(agent, url);
    expect(first.body.creditsUsed).toBe(3);
    world.providers.resetAll();
    const sessionsBefore = world.mail.totals().sessions;

    const second = await enrich(agent, url);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ...first.body, creditsUsed: 0 });
    expect(world.providers.pdl.requests.length + world.providers.hunter.requests.length + world.providers.lusha.requests.length).toBe(0);
    expect(world.mail.totals().sessions).toBe(sessionsBefore);
    expect((await ledgerOf(h, organizationId)).balance).toBe(7);

    // Another organization pays for its own.
    const other = await h.signup({ credits: 10 });
    expect((await enrich(other.agent, url)).body.creditsUsed).toBe(3);
  });

  it('withholds what the balance cannot pay for, and finds it again once credits are added', async () => {
    const { agent, organizationId } = await h.signup({ credits: 3 });
    const url = world.profile('short');
    const work = world.mailbox(MAIL.company);
    const personal = world.mailbox(MAIL.personal);
    const mobile = nextPhone();
    world.providers.pdl.fixtures.people.set(url, { first_name: 'Sh', work_email: work, personal_emails: [personal], mobile_phone: mobile });

    const res = await enrich(agent, url);
    expect(res.body).toMatchObject({ success: true, creditsUsed: 2, withheld: ['phone'], profile: { workEmail: work, personalEmail: personal, phone: null } });
    expect((await ledgerOf(h, organizationId)).balance).toBe(1);

    // The phone was not paid for, so it is not settled by the cache: with credits it is looked up and charged.
    const { applyCredits } = await import('../../src/accounts/credits.ts');
    await applyCredits(h.orm.em.fork(), { organizationId, delta: 5, reason: 'top up', idempotencyKey: `top-up:${organizationId}` });
    world.providers.resetAll();
    const again = await enrich(agent, url);
    expect(again.body).toMatchObject({ creditsUsed: 2, withheld: [], profile: { workEmail: work, personalEmail: personal, phone: mobile } });
    expect(world.providers.pdl.requests.length).toBe(1);
    const ledger = await ledgerOf(h, organizationId);
    expect(ledger.balance).toBe(4);
    expect(ledger.sum).toBe(4);
  });

  it('answers success false with only the URL when nobody knows the person, for 0 credits', async () => {
    const { agent, organizationId } = await h.signup({ credits: 5 });
    const url = world.profile('nobody');
    const res = await enrich(agent, url);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: false, profile: { networkUrl: url }, creditsUsed: 0, withheld: [] });
    expect(calls(url)).toMatchObject({ pdl: 1, lusha: 1 });
    expect((await ledgerOf(h, organizationId)).balance).toBe(5);
  });

  it('rejects a URL that is not a profile URL with 400 and a zero balance with 402, calling no provider', async () => {
    const { agent } = await h.signup({ credits: 5 });
    for (const networkUrl of ['https://www.linkedin.com/company/acme', 'https://example.com/in/jane', 'jane doe', '']) {
      expectError(await agent.post('/api/enrichment/enrich', { networkUrl }), 400, 'validation_error');
    }
    expectError(await agent.post('/api/enrichment/enrich', {}), 400, 'validation_error');

    const broke = await h.signup();
    const error = expectError(await enrich(broke.agent, world.profile('broke')), 402, 'insufficient_credits');
    expect(error.details).toEqual({ balance: 0 });
    expect(world.providers.pdl.requests.length).toBe(0);
    expectError(await new Agent(h.app).post('/api/enrichment/enrich', { networkUrl: world.profile() }), 401, 'unauthorized');
  });
});

describe('provider error conventions in the waterfall', () => {
  it('PDL 404 and a Lusha HTTP-200 "not found" are no match; Hunter 202 is asked again; 5xx is retried', async () => {
    const { agent } = await h.signup({ credits: 10 });
    const url = world.profile('conventions');
    const work = world.mailbox(MAIL.company);
    world.providers.pdl.fixtures.people.set(url, { first_name: 'Ed', last_name: 'Conv', job_company_website: MAIL.company });
    world.providers.hunter.fixtures.findings.set(hunterPersonKey('Ed', 'Conv', MAIL.company), { email: work, phone_number: '+1 212 555 0100' });
    world.providers.pdl.setMode({ kind: 'server-error', status: 503 }, 1);
    world.providers.hunter.setMode({ kind: 'pending' }, 2);

    const res = await enrich(agent, url);
    expect(res.body).toMatchObject({ success: true, creditsUsed: 3, profile: { workEmail: work, phone: '+12125550100' } });
    expect(world.providers.pdl.requests.length).toBe(2);
    expect(world.providers.hunter.requests.filter((r) => r.path === '/v2/email-finder').length).toBe(3);
    // Work email and phone found: Lusha is asked only for the personal email, and has no record (HTTP 200 error body).
    expect(world.providers.lusha.requests.length).toBe(1);
    expect(res.body.profile.personalEmail).toBeNull();
  });

  it('a rejected key fails the request with 422 and the provider’s reason, never the key', async () => {
    const { agent, organizationId } = await h.signup({ credits: 10 });
    const url = world.profile('bad-key');
    world.providers.pdl.fixtures.people.set(url, { work_email: world.mailbox(MAIL.company) });
    world.providers.pdl.setMode({ kind: 'bad-key' });
    const pdlError = expectError(await enrich(agent, url), 422, 'unprocessable');
    expect(pdlError.message).toMatch(/pdl rejected the API key/);
    expect(pdlError.details).toEqual({ reason: 'provider_credentials' });

    world.providers.resetAll();
    world.providers.lusha.setMode({ kind: 'bad-key' });
    const lushaError = expectError(await enrich(agent, world.profile('bad-key')), 422, 'unprocessable');
    expect(lushaError.message).toMatch(/lusha rejected the API key/);
    for (const key of Object.values(world.providers.keys)) expect(JSON.stringify(lushaError) + JSON.stringify(pdlError)).not.toContain(key);
    expect((await ledgerOf(h, organizationId)).balance).toBe(10);
  });
});
