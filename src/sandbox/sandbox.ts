import { createHash } from 'node:crypto';
import type { MailWorld } from './mail-world/world.ts';
import { startMailWorld } from './mail-world/world.ts';
import type { DnsRecords, HostBehaviour, MailWorldDescription } from './mail-world/types.ts';
import { autodiscoverNameOf, eopHostOf } from '../domain/mailbox-provider.ts';
import { startPdlServer } from './providers/pdl.ts';
import { startSerperServer } from './providers/serper.ts';
import { startZeroBounceServer } from './providers/zerobounce.ts';

/**
 * The development sandbox: when `npm run dev` finds no provider key and no SMTP setting, it serves the same
 * stand-ins the tests use, with made-up data, so every feature works end to end on a fresh machine without
 * keys or internet. Each piece stays off as soon as its real key or setting is given, and nothing of it
 * starts with NODE_ENV=production.
 */
export type SandboxPiece = 'search' | 'verification' | 'enrichment' | 'mail' | 'credits';

export interface Sandbox {
  pieces: SandboxPiece[];
  /** Variables for the app: the stand-ins' addresses and keys. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export const SANDBOX_SUFFIX = 'sandbox.test';
export const SANDBOX_CREDITS = 1000;

/** The made-up people every sandbox search and enrichment draws from. */
export const SANDBOX_PEOPLE = [
  ['Jane', 'Doe'],
  ['John', 'Roe'],
  ['Ada', 'Byron'],
  ['Alan', 'Turing'],
  ['Grace', 'Hopper'],
  ['Katherine', 'Johnson'],
] as const;
const mailbox = ([first, last]: readonly [string, string]) => `${first}.${last}`.toLowerCase();

/** The documented domains of the sandbox mail world and what verification concludes for each. */
export const SANDBOX_DOMAINS: Record<string, { behaviour: HostBehaviour; verdict: string }> = {
  [`acme.${SANDBOX_SUFFIX}`]: { behaviour: {}, verdict: 'Valid for jane.doe@, john.roe@, ada.byron@, alan.turing@, grace.hopper@, katherine.johnson@; Invalid otherwise' },
  [`mail.${SANDBOX_SUFFIX}`]: { behaviour: {}, verdict: 'the same mailboxes: the personal addresses enrichment finds' },
  [`catchall.${SANDBOX_SUFFIX}`]: { behaviour: { catchAll: true }, verdict: 'Catch-All (the API fallback then says valid for the people above, invalid otherwise)' },
  [`greylist.${SANDBOX_SUFFIX}`]: { behaviour: { greylist: true }, verdict: 'greylists each address once: Valid or Invalid after the retry' },
  [`blocked.${SANDBOX_SUFFIX}`]: { behaviour: { policyBlock: true }, verdict: 'a policy block: Unknown' },
  [`down.${SANDBOX_SUFFIX}`]: { behaviour: { refused: true }, verdict: 'its MX host refuses connections: Unknown' },
  [`postgrey.${SANDBOX_SUFFIX}`]: { behaviour: { greylistForMs: 30_000 }, verdict: 'greylists each (sender, address) for 30 s, past the in-session retries: Valid or Invalid after a later attempt (SMTP_GREYLIST_SCHEDULE)' },
};

/**
 * Catch-all domains whose mailboxes are hosted elsewhere than their MX name says, or by a newer MX name (CONTRACT §12
 * "Who hosts the mailboxes"): each MX host accepts any address, and its DNS shows what results carry as
 * `mailboxProvider` / `mailboxProviderSignals`. On 127.77.1.x, apart from the documented domains above.
 */
const M365_SPF = 'v=spf1 include:spf.protection.outlook.com -all';
export const SANDBOX_MAILBOX_HOST_DOMAINS: Record<string, { mx: string; ip: string; records: Record<string, DnsRecords>; mailboxHost: string }> = {
  [`m365-proofpoint.${SANDBOX_SUFFIX}`]: {
    mx: 'm365-proofpoint-sandbox-test.pphosted.com',
    ip: '127.77.1.2',
    records: {
      [`m365-proofpoint.${SANDBOX_SUFFIX}`]: { txt: [M365_SPF] },
      [autodiscoverNameOf(`m365-proofpoint.${SANDBOX_SUFFIX}`)]: { cname: 'autodiscover.outlook.com' },
    },
    mailboxHost: 'Microsoft 365 behind a Proofpoint gateway: microsoft (spf, autodiscover)',
  },
  [`m365-mimecast.${SANDBOX_SUFFIX}`]: {
    mx: 'm365-mimecast-sandbox-test.mimecast.com',
    ip: '127.77.1.3',
    // The EOP host only has to resolve; nothing is asked there (a documentation address).
    records: { [eopHostOf(`m365-mimecast.${SANDBOX_SUFFIX}`)]: { a: ['192.0.2.25'] } },
    mailboxHost: 'Microsoft 365 behind a Mimecast gateway: microsoft (eop)',
  },
  [`m365-new.${SANDBOX_SUFFIX}`]: {
    mx: 'm365-new-sandbox-test.j-v1.mx.microsoft',
    ip: '127.77.1.4',
    records: {},
    mailboxHost: 'Microsoft 365 on a newer MX name: microsoft (mx)',
  },
  [`workspace.${SANDBOX_SUFFIX}`]: {
    mx: `filter.workspace.${SANDBOX_SUFFIX}`,
    ip: '127.77.1.5',
    records: { [`workspace.${SANDBOX_SUFFIX}`]: { txt: ['v=spf1 include:_spf.google.com ~all'] } },
    mailboxHost: 'Google Workspace behind a gateway of its own: google (spf)',
  },
};

/** Has no MX and no A record: Invalid. Any name outside sandbox.test: Unknown (the sandbox resolver knows nothing of it). */
export const SANDBOX_NO_MAIL_DOMAIN = `nomail.${SANDBOX_SUFFIX}`;

function mailWorldDescription(): MailWorldDescription {
  const mailboxes = SANDBOX_PEOPLE.map(mailbox);
  const domains: MailWorldDescription['domains'] = Object.fromEntries(
    Object.entries(SANDBOX_DOMAINS).map(([domain, { behaviour }], i) => [
      domain,
      { mx: [{ host: `mx.${domain}`, preference: 10, ip: `127.77.0.${i + 2}`, behaviour: { mailboxes: mailboxes.map((m) => `${m}@${domain}`), ...behaviour } }] },
    ]),
  );
  const hosted = Object.entries(SANDBOX_MAILBOX_HOST_DOMAINS);
  const hostedDomains = Object.fromEntries(
    hosted.map(([domain, { mx, ip }]) => [domain, { mx: [{ host: mx, preference: 10, ip, behaviour: { catchAll: true } }] }]),
  );
  const records = Object.fromEntries(hosted.flatMap(([, spec]) => Object.entries(spec.records)));
  return { domains: { ...domains, ...hostedDomains, [SANDBOX_NO_MAIL_DOMAIN]: {} }, records, authoritativeFor: SANDBOX_SUFFIX };
}

/** The same query always finds the same person. */
function personFor(seed: string) {
  const digest = createHash('sha256').update(seed).digest();
  const [first, last] = SANDBOX_PEOPLE[digest[0]! % SANDBOX_PEOPLE.length]!;
  return { first, last, slug: `${first}-${last}-${digest.subarray(1, 3).toString('hex')}`.toLowerCase() };
}

function personOfProfile(profileUrl: string) {
  const slug = /\/in\/([^/?#]+)/.exec(profileUrl)?.[1] ?? '';
  return SANDBOX_PEOPLE.find((person) => slug.startsWith(mailbox(person).replace('.', '-')));
}

/** What is given decides what the sandbox stands in for. */
export function sandboxPieces(env: Record<string, string | undefined>): SandboxPiece[] {
  if (env.NODE_ENV === 'production') return [];
  const given = (...names: string[]) => names.some((name) => env[name]);
  const pieces: SandboxPiece[] = [];
  if (!given('SERPER_API_KEY', 'BRAVE_API_KEY')) pieces.push('search');
  if (!given('ZEROBOUNCE_API_KEY', 'REACHER_BASE_URL')) pieces.push('verification');
  if (!given('PDL_API_KEY', 'HUNTER_API_KEY', 'LUSHA_API_KEY')) pieces.push('enrichment');
  if (!given('DNS_SERVERS', 'SMTP_PROBE_PORT')) pieces.push('mail');
  if (!given('SIGNUP_CREDITS')) pieces.push('credits');
  return pieces;
}

export async function startSandbox(env: Record<string, string | undefined>): Promise<Sandbox> {
  const pieces = sandboxPieces(env);
  const out: Record<string, string> = {};
  const stops: Array<() => Promise<void>> = [];
  try {
    if (pieces.includes('search')) {
      const serper = await startSerperServer({ apiKey: 'sandbox-serper' });
      serper.fixtures.fallback = (query) => {
        const person = personFor(query);
        const company = /"([^"]+)"/.exec(query)?.[1] ?? 'Acme';
        return [{ title: `${person.first} ${person.last} - Head of Sales - ${company} | LinkedIn`, link: `https://www.linkedin.com/in/${person.slug}` }];
      };
      Object.assign(out, { SEARCH_PROVIDER: 'serper', SERPER_BASE_URL: serper.url, SERPER_API_KEY: serper.apiKey });
      stops.push(() => serper.close());
    }
    if (pieces.includes('verification')) {
      const zerobounce = await startZeroBounceServer({ apiKey: 'sandbox-zerobounce' });
      const known = new Set(SANDBOX_PEOPLE.map(mailbox));
      zerobounce.fixtures.fallback = (address) => {
        const [local = '', domain = ''] = address.split('@');
        if (!domain.endsWith(SANDBOX_SUFFIX)) return undefined;
        return { status: known.has(local) ? 'valid' : 'invalid' };
      };
      Object.assign(out, {
        VERIFICATION_PROVIDER: 'zerobounce',
        ZEROBOUNCE_BASE_URL: zerobounce.url,
        ZEROBOUNCE_BULK_BASE_URL: zerobounce.url,
        ZEROBOUNCE_API_KEY: zerobounce.apiKey,
      });
      stops.push(() => zerobounce.close());
    }
    if (pieces.includes('enrichment')) {
      const pdl = await startPdlServer({ apiKey: 'sandbox-pdl' });
      pdl.fixtures.fallback = (profileUrl) => {
        const person = personOfProfile(profileUrl);
        if (!person) return undefined;
        const [first, last] = person;
        const index = SANDBOX_PEOPLE.indexOf(person);
        return {
          full_name: `${first} ${last}`,
          first_name: first,
          last_name: last,
          job_title: 'Head of Sales',
          job_company_name: 'Acme',
          job_company_website: `acme.${SANDBOX_SUFFIX}`,
          work_email: `${mailbox(person)}@acme.${SANDBOX_SUFFIX}`,
          personal_emails: [`${mailbox(person)}@mail.${SANDBOX_SUFFIX}`],
          mobile_phone: `+1415555010${index}`,
        };
      };
      Object.assign(out, { PDL_BASE_URL: pdl.url, PDL_API_KEY: pdl.apiKey });
      stops.push(() => pdl.close());
    }
    if (pieces.includes('mail')) {
      const world: MailWorld = await startMailWorld(mailWorldDescription());
      Object.assign(out, { DNS_SERVERS: world.dnsServers.join(','), SMTP_PROBE_PORT: String(world.port) });
      stops.push(() => world.stop());
    }
    if (pieces.includes('credits')) out.SIGNUP_CREDITS = String(SANDBOX_CREDITS);
  } catch (error) {
    for (const stop of stops) await stop();
    throw error;
  }
  out.SANDBOX = pieces.join(',');
  return {
    pieces,
    env: out,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
