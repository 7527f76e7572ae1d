import type { ActivityDeps } from '../../../activities/deps.ts';
import type { Config } from '../../../src/config.ts';
import { HunterProvider, LushaProvider, PdlProvider, type EnrichmentProviderName } from '../../../src/providers/enrichment/index.ts';
import type { EnrichmentProvider } from '../../../src/providers/enrichment/index.ts';
import { type MailWorld, mailWorldEnv, startMailWorld } from '../mail-world/index.ts';
import { startProviderServers, type ProviderServers } from '../providers/index.ts';
import { FAST_TUNING } from '../providers/tuning.ts';

/** Existing mailboxes per domain: `user<k>@`; any other local part is unknown there. */
export const MAILBOXES = 400;

/**
 * Mail domains of the enrichment tests: company domains whose mailboxes exist (`user<k>@`), a
 * personal-mail provider, and a catch-all domain where no address can be confirmed by SMTP.
 */
export const MAIL = {
  company: 'acme.test',
  other: 'globex.test',
  personal: 'mailbox.test',
  catchAll: 'anything.test',
} as const;

export interface EnrichmentWorld {
  providers: ProviderServers;
  mail: MailWorld;
  /** Environment for `startHarness` (and a worker process): stand-in URLs and keys, the mail world's DNS and port. */
  env: Record<string, string>;
  /** A distinct existing mailbox on `domain` (the next `user<k>@`). */
  mailbox(domain: string): string;
  /** A distinct address on `domain` that does not exist there. */
  nobody(domain: string): string;
  /** A distinct profile URL. */
  profile(prefix?: string): string;
  stop(): Promise<void>;
}

const mailboxes = (domain: string) => Array.from({ length: MAILBOXES }, (_, k) => `user${k}@${domain}`);

/** Adapters as the worker builds them, with test timings (millisecond backoff, no rate limit, short Hunter 202 pause). */
export function fastEnrichmentProviders(config: Config): Record<EnrichmentProviderName, EnrichmentProvider> {
  return {
    pdl: new PdlProvider({ ...FAST_TUNING, baseUrl: config.PDL_BASE_URL }),
    hunter: new HunterProvider({ ...FAST_TUNING, baseUrl: config.HUNTER_BASE_URL, pendingDelayMs: 20 }),
    lusha: new LushaProvider({ ...FAST_TUNING, baseUrl: config.LUSHA_BASE_URL }),
  };
}

/** `startHarness({ deps })` override: fast adapters, everything else as the worker wires it. */
export const withFastProviders = (base: ActivityDeps): ActivityDeps => ({ ...base, enrichmentProviders: fastEnrichmentProviders(base.config) });

let profiles = 0;

export async function startEnrichmentWorld(options: { ipBase?: number } = {}): Promise<EnrichmentWorld> {
  const ip = (n: number) => `127.0.${options.ipBase ?? 77}.${n}`;
  const providers = await startProviderServers();
  const mail = await startMailWorld({
    domains: {
      [MAIL.company]: { mx: [{ host: `mx.${MAIL.company}`, preference: 10, ip: ip(1), behaviour: { mailboxes: mailboxes(MAIL.company), starttls: false } }] },
      [MAIL.other]: { mx: [{ host: `mx.${MAIL.other}`, preference: 10, ip: ip(2), behaviour: { mailboxes: mailboxes(MAIL.other), starttls: false } }] },
      [MAIL.personal]: { mx: [{ host: `mx.${MAIL.personal}`, preference: 10, ip: ip(3), behaviour: { mailboxes: mailboxes(MAIL.personal), starttls: false } }] },
      [MAIL.catchAll]: { mx: [{ host: `mx.${MAIL.catchAll}`, preference: 10, ip: ip(4), behaviour: { catchAll: true, starttls: false } }] },
    },
  });
  const next = new Map<string, number>();
  const counter = (key: string) => {
    const n = next.get(key) ?? 0;
    next.set(key, n + 1);
    return n;
  };
  return {
    providers,
    mail,
    env: {
      ...providers.urls,
      ...providers.keys,
      ...mailWorldEnv(mail, { SMTP_PROBE_TIMEOUT_MS: '2000', SMTP_GREYLIST_DELAY_MS: '50' }),
      // The tests poll job status often; the per-session rate limit is not what they are about.
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_BURST: '1000000',
    },
    mailbox(domain) {
      const k = counter(`box:${domain}`);
      if (k >= MAILBOXES) throw new Error(`no more mailboxes on ${domain}`);
      return `user${k}@${domain}`;
    },
    nobody(domain) {
      return `nobody${counter(`nobody:${domain}`)}@${domain}`;
    },
    profile(prefix = 'person') {
      return `https://www.linkedin.com/in/${prefix}-${process.pid}-${++profiles}`;
    },
    async stop() {
      await providers.close();
      await mail.stop();
    },
  };
}
