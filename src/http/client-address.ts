import { isIPv6 } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import type { AppEnv } from './env.ts';

/**
 * The address a per-client limit is keyed on. Behind `TRUST_PROXY_HOPS` proxies it is the entry that many
 * from the right of `X-Forwarded-For` (entries further left are the client's own word). An IPv6 client
 * usually holds a whole /64, so it counts as that prefix.
 */
export function clientAddress(c: Context<AppEnv>): string {
  const hops = c.var.deps.config.TRUST_PROXY_HOPS;
  let address: string | undefined;
  if (hops > 0) {
    const chain = (c.req.header('x-forwarded-for') ?? '').split(',').map((part) => part.trim()).filter(Boolean);
    address = chain[chain.length - hops];
  }
  address ??= socketAddress(c);
  return address ? addressKey(address) : 'unknown';
}

function socketAddress(c: Context<AppEnv>): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // not served by @hono/node-server (app.request() in tests)
  }
}

function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const groups = expandIPv6(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIPv6(address: string): string[] {
  const [head = '', tail] = address.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
}
