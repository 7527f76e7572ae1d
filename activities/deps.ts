import type { Config } from '../src/config.ts';
import type { Orm } from '../src/db/orm.ts';
import { createEnrichmentProviders, type EnrichmentProvider, type EnrichmentProviderName } from '../src/providers/enrichment/index.ts';
import { createSearchProvider, type ProfileSearchProvider } from '../src/providers/search/index.ts';
import { createVerificationProvider, type EmailVerificationProvider } from '../src/providers/verification/index.ts';
import { limitedPool } from '../src/db/pg-options.ts';
import { MicrosoftDirectory } from '../src/directory/microsoft.ts';
import { log } from '../src/log.ts';
import { SmtpProber } from '../src/smtp/prober.ts';
import { SharedBudget } from '../src/smtp/shared-budget.ts';

/**
 * Everything activities may touch, built once per worker process and closed over by the factories.
 * Long-lived clients (the SMTP prober with its process-wide limits, provider adapters with their rate
 * limiters) live here so every activity of the worker shares them.
 */
export interface ActivityDeps {
  config: Config;
  orm: Orm;
  /** Profile search for scrape jobs (SEARCH_PROVIDER); one instance, so one rate limit per worker. */
  search: ProfileSearchProvider;
  /** SMTP prober of the verification jobs (SMTP_PROBE_*, DNS_SERVERS); its connection limits hold across all of them. */
  prober: SmtpProber;
  /** API fallback and api_only verification (VERIFICATION_PROVIDER). */
  verificationProvider: EmailVerificationProvider;
  /** Enrichment adapters (PDL, Hunter, Lusha), each with its rate limiter; keys are passed per call. */
  enrichmentProviders: Record<EnrichmentProviderName, EnrichmentProvider>;
  /** Microsoft's directory (CONTRACT §12), paced across every worker; null unless MS_DIRECTORY_CHECK=on. */
  directory: MicrosoftDirectory | null;
}

/** The one place a worker's dependencies are wired from configuration (production and tests alike). */
export function createActivityDeps(config: Config, orm: Orm): ActivityDeps {
  return {
    config,
    orm,
    search: createSearchProvider(config),
    prober: createSmtpProber(config),
    verificationProvider: createVerificationProvider(config),
    enrichmentProviders: createEnrichmentProviders(config),
    directory: createDirectory(config),
  };
}

/** The worker's one MicrosoftDirectory (CONTRACT §12), or null when the check is off. */
export function createDirectory(config: Config): MicrosoftDirectory | null {
  if (config.MS_DIRECTORY_CHECK !== 'on') return null;
  // The pace and the canary verdicts are shared through PostgreSQL: without it there is no honest pace.
  if (!config.DATABASE_URL) throw new Error('MS_DIRECTORY_CHECK=on needs DATABASE_URL: the pace is shared through PostgreSQL');
  // A small pool of its own: a pace reservation must not queue behind the activities' queries.
  const pool = limitedPool(config, 4, 'Microsoft directory', { allowExitOnIdle: true });
  log.info('Microsoft directory check on', { baseUrl: config.MS_LOGIN_BASE_URL, ratePerSecond: config.MS_DIRECTORY_RATE });
  return new MicrosoftDirectory({ baseUrl: config.MS_LOGIN_BASE_URL, pool, ratePerSecond: config.MS_DIRECTORY_RATE });
}

function createSmtpProber(config: Config): SmtpProber {
  // Every worker process on this database shares each (egress, MX host) budget (CONTRACT §11). A pool of its
  // own: one lease query per SMTP session must not queue behind the activities' queries.
  const budget = config.DATABASE_URL
    ? new SharedBudget(limitedPool(config, 8, 'SMTP budget', { allowExitOnIdle: true }))
    : undefined;
  return new SmtpProber({
    ...(budget ? { budget } : {}),
    ...(config.SMTP_SOURCE_ADDRESSES ? { sourceAddresses: config.SMTP_SOURCE_ADDRESSES } : {}),
    helo: config.SMTP_PROBE_HELO,
    from: config.smtpProbeFrom,
    port: config.SMTP_PROBE_PORT,
    timeoutMs: config.SMTP_PROBE_TIMEOUT_MS,
    concurrency: config.SMTP_PROBE_CONCURRENCY,
    perHost: config.SMTP_PROBE_PER_DOMAIN,
    providerLimits: config.SMTP_PROVIDER_LIMITS,
    ...(config.SMTP_PROXY ? { proxy: config.SMTP_PROXY } : {}),
    greylistDelayMs: config.SMTP_GREYLIST_DELAY_MS,
    canaryDomains: config.SMTP_CANARY_DOMAINS,
    egressQuarantineMs: config.EGRESS_QUARANTINE,
    egressPublicIps: config.SMTP_EGRESS_PUBLIC_IPS,
    dnsblZones: config.DNSBL_ZONES,
    egressCheckIntervalMs: config.EGRESS_CHECK_INTERVAL,
    ...(config.DNS_SERVERS ? { dnsServers: config.DNS_SERVERS } : {}),
  });
}
