/**
 * SSRF guard for webhook URLs (CONTRACT §9.3), applied at creation and again before every delivery, since
 * what a name resolves to may change between the two.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export interface GuardOptions {
  allowInsecure: boolean;
  allowPrivate: boolean;
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

/** The URL parsed, or a WebhookUrlError saying why it may not be called. */
export async function assertDeliverableUrl(raw: string, options: GuardOptions): Promise<URL> {
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
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0) throw new WebhookUrlError(`${host} does not resolve`);
  for (const address of addresses) {
    const kind = classify(address);
    if (kind === 'refused') throw new WebhookUrlError(`${host} resolves to a link-local or metadata address`);
    if (kind === 'private' && !options.allowPrivate) throw new WebhookUrlError(`${host} resolves to a loopback or private address`);
  }
  return url;
}
