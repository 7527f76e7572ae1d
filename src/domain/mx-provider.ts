import { z } from 'zod';
import { socksUrlListSchema, socksUrlsOf } from './socks-proxy.ts';

/** Mail providers recognised from MX host names (CONTRACT §10 `mxProvider`). */
export const MX_PROVIDERS = [
  'google',
  'microsoft',
  'yahoo',
  'zoho',
  'proofpoint',
  'mimecast',
  'other',
] as const;
export type MxProvider = (typeof MX_PROVIDERS)[number];

// Suffixes of the providers' MX names (Google Workspace, Microsoft 365/EOP, Yahoo, Zoho, Proofpoint
// Essentials and PPS, Mimecast); a host matches the name itself or any subdomain of it. Microsoft gives new
// Microsoft 365 domains DNSSEC-signed hosts under `mx.microsoft` (`contoso-com.j-v1.mx.microsoft`: since 2024,
// for every new domain from July 2026); consumer Outlook's hosts sit under `olc.protection.outlook.com`.
const SUFFIXES: ReadonlyArray<readonly [MxProvider, readonly string[]]> = [
  ['google', ['google.com', 'googlemail.com']],
  [
    'microsoft',
    [
      'mail.protection.outlook.com',
      'olc.protection.outlook.com',
      'outlook.com',
      'hotmail.com',
      'messaging.microsoft.com',
      'mx.microsoft',
    ],
  ],
  ['yahoo', ['yahoodns.net', 'yahoo.com']],
  ['zoho', ['zoho.com', 'zoho.eu', 'zoho.in', 'zoho.com.au', 'zohomail.com']],
  ['proofpoint', ['pphosted.com', 'ppe-hosted.com']],
  ['mimecast', ['mimecast.com', 'mimecast.co.za', 'mimecast-offshore.com']],
];

// Each suffix with its leading dot, built once: the lookup runs for every address a job stores.
const DOTTED_SUFFIXES = SUFFIXES.flatMap(([provider, suffixes]) => suffixes.map((suffix) => [provider, suffix, `.${suffix}`] as const));

export function providerOfHost(host: string): MxProvider {
  const name = host.toLowerCase().replace(/\.$/, '');
  for (const [provider, suffix, dotted] of DOTTED_SUFFIXES) if (name === suffix || name.endsWith(dotted)) return provider;
  return 'other';
}

/** How hard one MX host of a provider may be asked. */
export interface ProviderLimits {
  /** Sessions open at once to one MX host. */
  connections: number;
  /** Least time between two new sessions to one MX host. */
  connectIntervalMs: number;
  /** RCPTs written at once on a PIPELINING session. */
  window: number;
  /** Rejected RCPTs after which a session ends and the rest continue on another. */
  rejectsPerSession: number;
}

export const providerLimitsSchema = z.object({
  connections: z.number().int().min(1).max(100),
  connectIntervalMs: z.number().int().min(0).max(600_000),
  window: z.number().int().min(1).max(100),
  rejectsPerSession: z.number().int().min(1).max(1000),
});

/**
 * `SMTP_PROVIDER_LIMITS`: per provider, any subset of the limits, and `proxy`, the SOCKS5 egress of
 * its hosts instead of `SMTP_PROXY`.
 */
export const providerOverridesSchema = z
  .partialRecord(z.enum(MX_PROVIDERS), providerLimitsSchema.partial().extend({ proxy: socksUrlListSchema.optional() }).strict())
  .refine((value) => Object.keys(value).every((key) => (MX_PROVIDERS as readonly string[]).includes(key)), {
    message: `keys must be among ${MX_PROVIDERS.join(', ')}`,
  });
export type ProviderOverrides = z.infer<typeof providerOverridesSchema>;

/**
 * The built-in table. The big providers serve millions of domains from a few host names and take
 * several parallel sessions without complaint; Yahoo throttles early. Unknown hosts get the polite
 * default (`SMTP_PROBE_PER_DOMAIN`, 2).
 */
export function providerTable(
  otherConnections: number,
  overrides: ProviderOverrides = {},
  rejectsPerSession = 8,
): Record<MxProvider, ProviderLimits> {
  const base: Record<MxProvider, Omit<ProviderLimits, 'rejectsPerSession'>> = {
    google: { connections: 5, connectIntervalMs: 100, window: 25 },
    microsoft: { connections: 5, connectIntervalMs: 100, window: 25 },
    yahoo: { connections: 2, connectIntervalMs: 500, window: 10 },
    zoho: { connections: 3, connectIntervalMs: 200, window: 20 },
    proofpoint: { connections: 3, connectIntervalMs: 200, window: 20 },
    mimecast: { connections: 3, connectIntervalMs: 200, window: 20 },
    other: { connections: otherConnections, connectIntervalMs: 0, window: 50 },
  };
  const table = {} as Record<MxProvider, ProviderLimits>;
  for (const provider of MX_PROVIDERS) {
    const { proxy: _proxy, ...limits } = overrides[provider] ?? {};
    table[provider] = { ...base[provider], rejectsPerSession, ...limits };
  }
  return table;
}

/** The proxy egresses of each provider's hosts: its own `proxy` list, else `SMTP_PROXY`'s, else none (direct). */
export function providerProxies(
  overrides: ProviderOverrides = {},
  proxies: string | undefined = undefined,
): Record<MxProvider, readonly string[]> {
  const table = {} as Record<MxProvider, readonly string[]>;
  for (const provider of MX_PROVIDERS) table[provider] = socksUrlsOf(overrides[provider]?.proxy ?? proxies ?? '');
  return table;
}
