import { z } from 'zod';

/** A SOCKS5 proxy that probe connections leave through (`SMTP_PROXY`, a provider's `proxy`). */
export interface SocksProxy {
  host: string;
  port: number;
  /** RFC 1929 username and password; both or neither. */
  credentials: { user: string; password: string } | null;
  /** `host:port`: what reasons and errors name. */
  label: string;
  /** The URL with the password replaced by `***`: the only form ever shown or logged. */
  redacted: string;
}

/**
 * Parses `socks5://[user:pass@]host:port`; a string is what is wrong with it. The messages never
 * repeat the value, which may hold a password.
 */
export function parseSocksUrl(value: string): SocksProxy | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'expected socks5://[user:pass@]host:port';
  }
  if (url.protocol !== 'socks5:') return 'the scheme must be socks5://';
  if (!url.hostname) return 'the proxy host is missing';
  if (!url.port) return 'the proxy port is missing (socks5://host:port)';
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash)
    return 'expected nothing after host:port';
  if (url.username === '' && url.password !== '') return 'a password needs a user (socks5://user:pass@host:port)';
  if (url.username !== '' && url.password === '') return 'a user needs a password (socks5://user:pass@host:port)';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const label = `${url.hostname}:${url.port}`;
  const user = decodeURIComponent(url.username);
  const proxy = {
    host,
    port: Number(url.port),
    label,
    redacted: user ? `socks5://${url.username}:***@${label}` : `socks5://${label}`,
  };
  // Not enumerable: a proxy that ends up logged or serialized shows no password.
  return Object.defineProperty(proxy, 'credentials', {
    value: user ? { user, password: decodeURIComponent(url.password) } : null,
    enumerable: false,
  }) as SocksProxy;
}

/** The URLs of a comma list (`SMTP_PROXY`, a provider's `proxy`), each one egress. */
export const socksUrlsOf = (value: string): string[] => value.split(',').map((url) => url.trim()).filter(Boolean);

/** A comma list of valid `socks5://` URLs, kept as the string. */
export const socksUrlListSchema = z.string().superRefine((value, ctx) => {
  for (const url of socksUrlsOf(value)) {
    const parsed = parseSocksUrl(url);
    if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: parsed });
  }
});

/** Parses one URL of a list that `socksUrlListSchema` already accepted. */
export function socksProxyOf(value: string): SocksProxy {
  const parsed = parseSocksUrl(value);
  if (typeof parsed === 'string') throw new Error(`invalid SOCKS5 proxy URL: ${parsed}`);
  return parsed;
}
