/**
 * SSRF guard for webhook URLs (CONTRACT §9.3), applied at creation and at every delivery attempt, since what a
 * name resolves to may change between the two. At delivery it is the connection's own resolution
 * (`checkedLookup`): the address checked is the one connected to, so a name that answers a public address to
 * the check and a private one a moment later (DNS rebinding) cannot slip through.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Every address a host name resolves to. */
export type Resolve = (host: string) => Promise<string[]>;

const systemResolve: Resolve = async (host) => (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);

export interface GuardOptions {
  allowInsecure: boolean;
  allowPrivate: boolean;
  /** The system resolver unless given (tests answer names without DNS). */
  resolve?: Resolve;
}

export class WebhookUrlError extends Error {}

/** Never reachable from a webhook, whatever the configuration: link-local and cloud metadata. */
const ALWAYS_REFUSED = new BlockList();
ALWAYS_REFUSED.addSubnet('169.254.0.0', 16, 'ipv4');
ALWAYS_REFUSED.addSubnet('fe80::', 10, 'ipv6');
ALWAYS_REFUSED.addAddress('fd00:ec2::254', 'ipv6');

/** Loopback, private, shared, unspecified and other non-public ranges. */
const PRIVATE = new BlockList();
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['192.0.0.0', 24], ['198.18.0.0', 15], ['224.0.0.0', 3]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv6');
}

function classify(address: string): 'refused' | 'private' | 'public' {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return classify(mapped);
  if (ALWAYS_REFUSED.check(address, family)) return 'refused';
  if (PRIVATE.check(address, family)) return 'private';
  return 'public';
}

/** The URL parsed, or a WebhookUrlError saying why it may not be called, without resolving its host. */
export function parseDeliverableUrl(raw: string, options: GuardOptions): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError('not a URL');
  }
  if (url.protocol !== 'https:' && !(options.allowInsecure && url.protocol === 'http:')) {
    throw new WebhookUrlError('must be an https:// URL');
  }
  if (url.username || url.password) throw new WebhookUrlError('must not carry credentials');
  // An address literal is connected to without any lookup: it is checked here.
  const host = hostOf(url);
  if (isIP(host)) assertAllowed(host, [host], options);
  return url;
}

/** The URL parsed and its host resolved and checked (at creation). */
export async function assertDeliverableUrl(raw: string, options: GuardOptions): Promise<URL> {
  const url = parseDeliverableUrl(raw, options);
  const host = hostOf(url);
  if (!isIP(host)) await resolveAllowed(host, options);
  return url;
}

/**
 * A `lookup` for the delivery's connection: resolves the host once, refuses it when any address may not be
 * called, and hands the connection the first of the addresses it checked.
 */
export function checkedLookup(options: GuardOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveAllowed(hostname, options).then(
      ([address]) => {
        const family = isIP(address!);
        if (lookupOptions.all) callback(null, [{ address: address!, family }]);
        else callback(null, address!, family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, ''),
    );
  };
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

async function resolveAllowed(host: string, options: GuardOptions): Promise<string[]> {
  const addresses = await (options.resolve ?? systemResolve)(host);
  if (addresses.length === 0) throw new WebhookUrlError(`${host} does not resolve`);
  assertAllowed(host, addresses, options);
  return addresses;
}

function assertAllowed(host: string, addresses: string[], options: GuardOptions): void {
  for (const address of addresses) {
    const kind = classify(address);
    if (kind === 'refused') throw new WebhookUrlError(`${host} resolves to a link-local or metadata address`);
    if (kind === 'private' && !options.allowPrivate) throw new WebhookUrlError(`${host} resolves to a loopback or private address`);
  }
}
