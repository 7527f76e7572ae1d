import { isIP } from 'node:net';
import { z } from 'zod';
import { providerOverridesSchema } from '../domain/mx-provider.ts';
import { socksUrlListSchema } from '../domain/socks-proxy.ts';
import { SmtpProberConfigError } from './errors.ts';
import type { SharedBudget } from './shared-budget.ts';
import type { SmtpProberOptions } from './types.ts';

function isDnsServer(entry: string): boolean {
  if (isIP(entry) !== 0) return true;
  const match = /^\[([0-9a-fA-F:.]+)\]:(\d{1,5})$/.exec(entry) ?? /^([0-9.]+):(\d{1,5})$/.exec(entry);
  if (!match) return false;
  const port = Number(match[2]);
  return isIP(match[1] ?? '') !== 0 && port >= 1 && port <= 65535;
}

const optionsSchema = z.object({
  helo: z.string().min(1).regex(/^\S+$/, 'must be one word'),
  from: z.string().regex(/^[^\s<>@]+@[^\s<>@]+$/, 'must be an address'),
  port: z.number().int().min(1).max(65535),
  timeoutMs: z.number().int().positive(),
  concurrency: z.number().int().positive(),
  perHost: z.number().int().positive(),
  dnsServers: z.array(z.string().refine(isDnsServer, 'expected ip, ip:port or [ipv6]:port')).optional(),
  greylistDelayMs: z.number().int().nonnegative().default(5000),
  greylistAttempts: z.number().int().positive().default(3),
  maxReconnects: z.number().int().nonnegative().default(3),
  maxRejectsPerSession: z.number().int().positive().default(8),
  rcptPerTransaction: z.number().int().positive().default(100),
  providerLimits: providerOverridesSchema.default({}),
  proxy: socksUrlListSchema.optional(),
  sourceAddresses: z.array(z.string().refine((ip) => isIP(ip) !== 0, 'expected an IP address')).default([]),
  budget: z.custom<SharedBudget>().optional(),
  canaryDomains: z.array(z.string().min(1)).default([]),
  egressQuarantineMs: z.number().int().positive().default(3_600_000),
  egressPublicIps: z.record(z.string(), z.string().refine((ip) => isIP(ip) === 4, 'expected an IPv4 address')).default({}),
  dnsblZones: z.array(z.string().min(1)).default([]),
  egressCheckIntervalMs: z.number().int().positive().default(6 * 3_600_000),
});

/** The prober's options with their defaults filled in. */
export type ParsedOptions = z.infer<typeof optionsSchema>;

/** `options` checked and completed, or an `SmtpProberConfigError` naming every field that is wrong. */
export function parseProberOptions(options: SmtpProberOptions): ParsedOptions {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new SmtpProberConfigError(`invalid SMTP prober options: ${issues}`);
  }
  return parsed.data;
}
