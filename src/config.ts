import { isIP } from 'node:net';
import os from 'node:os';
import { z } from 'zod';
import { providerOverridesSchema } from './domain/mx-provider.ts';
import { socksUrlListSchema } from './domain/socks-proxy.ts';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v));
const url = (def: string) => z.url().default(def);

/** Durations such as `7d`, `12h`, `30m`, `45s` or `1500ms`, parsed to milliseconds. */
const duration = (def: string) =>
  z
    .string()
    .default(def)
    .transform((value, ctx) => {
      const match = /^(\d+)(ms|s|m|h|d)$/.exec(value.trim());
      if (!match) {
        ctx.addIssue({ code: 'custom', message: 'expected a duration like 7d, 12h, 30m, 45s or 500ms' });
        return z.NEVER;
      }
      const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'ms'];
      return Number(match[1]) * unit;
    });

/**
 * A comma list of durations (`500ms,20s,1m,2h`) in milliseconds; empty means none. The message
 * names the entry that is not a duration.
 */
export const durationList = (def: string) =>
  z
    .string()
    .default(def)
    .transform((value, ctx) => {
      const entries = value.split(',').map((v) => v.trim());
      if (entries.length === 1 && entries[0] === '') return [];
      const out: number[] = [];
      for (const entry of entries) {
        const parsed = duration('0ms').safeParse(entry);
        if (!parsed.success) {
          ctx.addIssue({ code: 'custom', message: `"${entry}" is not a duration like 500ms, 20s, 1m or 2h` });
          return z.NEVER;
        }
        out.push(parsed.data);
      }
      return out;
    });

const secretsKey = optionalString.refine(
  (v) => v === undefined || Buffer.from(v, 'base64').length === 32,
  'must be 32 bytes, base64-encoded',
);

const schema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    ROLE: z.enum(['all', 'api', 'worker']).default('all'),
    PORT: int(3000, 0).pipe(z.number().max(65535)),
    LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
    // OpenTelemetry traces are exported only when an OTLP endpoint is given (the exporter reads the other OTEL_* variables).
    OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
    OTEL_SERVICE_NAME: z.string().min(1).default('lead-enrichment'),
    METRICS_ENABLED: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
    // Where the Temporal worker's Prometheus exporter listens (ROLE=all or worker); GET /metrics includes it.
    WORKER_METRICS_ADDRESS: z.string().default('127.0.0.1:9464'),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
    DATABASE_POOL_MAX: int(10, 1),
    // Every PostgreSQL connection: connecting (and waiting for a pooled one), one statement (0ms: none), and the
    // idle time before TCP keepalive probes it. A database that accepts TCP but never answers then costs a request
    // at most these, as a 503.
    DATABASE_CONNECT_TIMEOUT: duration('5s').pipe(z.number().min(1)),
    DATABASE_QUERY_TIMEOUT: duration('15s'),
    DATABASE_KEEPALIVE: duration('10s'),
    TEMPORAL_ADDRESS: optionalString,
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('lead-enrichment'),
    APP_ORIGINS: z
      .string()
      .default('http://localhost:5173')
      .transform((v) => v.split(',').map((o) => o.trim()).filter(Boolean))
      .pipe(z.array(z.url())),
    PUBLIC_ORIGIN: z.url().optional(),
    SECRETS_KEY: secretsKey,
    SIGNUP_CREDITS: int(0),
    SESSION_TTL: duration('30d'),
    // Token bucket per API key and per session, shared by every API process through PostgreSQL.
    RATE_LIMIT_PER_MINUTE: int(600, 1),
    RATE_LIMIT_BURST: int(120, 1),
    // Largest batch of tokens a process reserves from a shared bucket at once: the overshoot bound per process.
    RATE_LIMIT_BATCH: int(20, 1),
    // Key lookups kept in memory; changes are pushed by LISTEN/NOTIFY, the TTL is only a safety net.
    API_KEY_CACHE_TTL: duration('30s'),
    API_KEY_NEGATIVE_CACHE_TTL: duration('2s'),
    BODY_LIMIT_BYTES: int(1_048_576, 1024),
    // Per client address (an IPv6 address counts by its /64): account creation, and sign-in attempts of any outcome.
    SIGNUP_PER_HOUR: int(5, 1),
    LOGIN_PER_MINUTE: int(20, 1),
    // Reverse proxies in front of the API: the client address is that many entries from the right of X-Forwarded-For.
    TRUST_PROXY_HOPS: int(0),
    SMTP_PROBE_PORT: int(25, 1).pipe(z.number().max(65535)),
    SMTP_PROBE_HELO: z.string().min(1).default(os.hostname()),
    SMTP_PROBE_FROM: optionalString,
    SMTP_PROBE_TIMEOUT_MS: int(10_000, 1),
    SMTP_PROBE_CONCURRENCY: int(100, 1),
    SMTP_PROBE_PER_DOMAIN: int(2, 1),
    SMTP_GREYLIST_DELAY_MS: int(5_000, 0),
    // Waits before the later attempts of addresses still deferred (4xx) after the in-session ones; empty: none.
    SMTP_GREYLIST_SCHEDULE: durationList('1m,3m,6m,12m'),
    // Comma list of socks5://[user:pass@]host:port, each one egress of the probe connections; absent: direct.
    SMTP_PROXY: optionalString.pipe(socksUrlListSchema.optional()),
    // Comma list of local IP addresses probe connections bind to, each one egress; absent: the system's choice.
    SMTP_SOURCE_ADDRESSES: optionalString.pipe(
      z
        .string()
        .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
        .pipe(z.array(z.string().refine((ip) => isIP(ip) !== 0, 'expected IP addresses')))
        .optional(),
    ),
    // JSON per provider, e.g. {"google":{"connections":10,"proxy":"socks5://…"},"other":{"window":10}}; absent: the built-in table.
    SMTP_PROVIDER_LIMITS: optionalString.transform((value, ctx) => {
      if (value === undefined) return {};
      let json: unknown;
      try {
        json = JSON.parse(value);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
      const parsed = providerOverridesSchema.safeParse(json);
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          ctx.addIssue({ code: 'custom', message: `${issue.path.join('.') || '(root)'}: ${issue.message}` });
        return z.NEVER;
      }
      return parsed.data;
    }),
    DNS_SERVERS: optionalString.transform((v) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined)),
    // An empty value turns the checks off (tests whose mail world serves no canary domain).
    SMTP_CANARY_DOMAINS: z
      .string()
      .default('gmail.com,outlook.com,yahoo.com')
      .transform((v) => v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)),
    // CONTRACT §12: ask Microsoft's sign-in page whether an address exists (off unless the operator turns it on).
    MS_DIRECTORY_CHECK: z.enum(['off', 'on']).default('off'),
    MS_LOGIN_BASE_URL: url('https://login.microsoftonline.com'),
    // Requests per second to that host, all worker processes on the database together; fractions allowed (0.5).
    MS_DIRECTORY_RATE: z.coerce.number().positive().max(1000).default(2),
    // CONTRACT §13: how long an egress a provider refused stays away from that provider.
    EGRESS_QUARANTINE: duration('1h').pipe(z.number().min(1)),
    // CONTRACT §13 self-checks: blocklist zones (empty: none), how often, and each egress's public IPv4 address.
    DNSBL_ZONES: z
      .string()
      .default('zen.spamhaus.org')
      .transform((v) => v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean)),
    EGRESS_CHECK_INTERVAL: duration('6h').pipe(z.number().min(1000)),
    SMTP_EGRESS_PUBLIC_IPS: z
      .string()
      .default('')
      .transform((v, ctx) => {
        const map: Record<string, string> = {};
        for (const entry of v.split(',').map((s) => s.trim()).filter(Boolean)) {
          const at = entry.lastIndexOf('=');
          const ip = entry.slice(at + 1).trim();
          if (at <= 0 || isIP(ip) !== 4) ctx.addIssue({ code: 'custom', message: `expected <source address or proxy host:port>=<public IPv4>, got ${entry}` });
          else map[entry.slice(0, at).trim()] = ip;
        }
        return map;
      }),
    VERIFICATION_PROVIDER: z.enum(['zerobounce', 'reacher']).default('zerobounce'),
    VERIFICATION_DECISION_TIMEOUT: duration('7d'),
    // POST /api/external/verify: how long domain facts (MX, catch-all) and an address's own result are reused.
    VERIFY_DOMAIN_CACHE_TTL: duration('24h'),
    VERIFY_RESULT_CACHE_TTL: duration('1h'),
    ZEROBOUNCE_API_KEY: optionalString,
    ZEROBOUNCE_BASE_URL: url('https://api.zerobounce.net'),
    ZEROBOUNCE_BULK_BASE_URL: url('https://bulkapi.zerobounce.net'),
    REACHER_BASE_URL: z.url().optional(),
    REACHER_API_KEY: optionalString,
    SEARCH_PROVIDER: z.enum(['serper', 'brave']).default('serper'),
    SERPER_API_KEY: optionalString,
    SERPER_BASE_URL: url('https://google.serper.dev'),
    BRAVE_API_KEY: optionalString,
    BRAVE_BASE_URL: url('https://api.search.brave.com'),
    PDL_API_KEY: optionalString,
    PDL_BASE_URL: url('https://api.peopledatalabs.com'),
    HUNTER_API_KEY: optionalString,
    HUNTER_BASE_URL: url('https://api.hunter.io'),
    LUSHA_API_KEY: optionalString,
    LUSHA_BASE_URL: url('https://api.lusha.com'),
    ENRICHMENT_CACHE_DAYS: int(30),
    /** Leads per bulk enrichment batch: one activity call and one commit each. */
    ENRICHMENT_BATCH_SIZE: int(50, 1).pipe(z.number().max(1000)),
    // CONTRACT §14: RCPTs (or directory lookups) one find may spend on a person's candidate addresses.
    FINDER_MAX_CANDIDATES: int(8, 1).pipe(z.number().max(30)),
    // Webhook URLs: plain http:// and loopback/private addresses are refused unless set (tests, local receivers).
    WEBHOOK_ALLOW_INSECURE: z.stringbool().default(false),
    WEBHOOK_ALLOW_PRIVATE: z.stringbool().default(false),
    // Deliveries (CONTRACT §9.3): an answer must come within WEBHOOK_TIMEOUT; retries wait WEBHOOK_RETRY_FIRST, then 3×
    // longer each time up to WEBHOOK_RETRY_MAX, for WEBHOOK_RETRY_FOR. Tests shrink them; the defaults are the contract's.
    WEBHOOK_TIMEOUT: duration('10s').pipe(z.number().min(1).max(10_000)),
    WEBHOOK_RETRY_FIRST: duration('5s').pipe(z.number().min(1).max(15_000)),
    WEBHOOK_RETRY_MAX: duration('1h').pipe(z.number().min(1).max(3_600_000)),
    WEBHOOK_RETRY_FOR: duration('24h'),
    // How often expired idempotency keys and verify cache rows are deleted.
    CLEANUP_INTERVAL: duration('1h').pipe(z.number().min(1_000)),
    SCRAPE_MAX_FILE_BYTES: int(10_485_760, 1),
    SCRAPE_MAX_ROWS: int(50_000, 1),
    // Set by `npm run dev` to the pieces its sandbox stands in for (src/sandbox); reported by /readyz.
    SANDBOX: optionalString.transform((v) => (v ? v.split(',').filter(Boolean) : [])),
  })
  .superRefine((c, ctx) => {
    if (c.NODE_ENV === 'production' && c.SANDBOX.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['SANDBOX'], message: 'the development sandbox never runs in production' });
    }
    if (c.NODE_ENV === 'production' && c.WEBHOOK_RETRY_FOR < 86_400_000) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_RETRY_FOR'], message: 'must be at least 24h in production (CONTRACT §9.3)' });
    }
    if (c.WEBHOOK_RETRY_FIRST > c.WEBHOOK_RETRY_MAX) {
      ctx.addIssue({ code: 'custom', path: ['WEBHOOK_RETRY_FIRST'], message: 'must not exceed WEBHOOK_RETRY_MAX' });
    }
    if (c.NODE_ENV === 'production' && !c.SECRETS_KEY) {
      ctx.addIssue({ code: 'custom', path: ['SECRETS_KEY'], message: 'is required in production' });
    }
  });

export type Config = z.infer<typeof schema> & { smtpProbeFrom: string };

export class ConfigError extends Error {}

/** Parses the environment once; the message names every offending variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  return { ...c, smtpProbeFrom: c.SMTP_PROBE_FROM ?? `verify@${c.SMTP_PROBE_HELO}` };
}
