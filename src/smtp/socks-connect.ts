import type { Socket } from 'node:net';
import { SocksClient } from 'socks';
import type { SocksProxy } from '../domain/socks-proxy.ts';
import type { SmtpConnectionError } from './errors.ts';
import { SmtpConnectRefusedError, SmtpProxyError, SmtpTimeoutError } from './errors.ts';

export interface ProxiedConnectOptions {
  /** MX host name, for reasons. */
  host: string;
  /** The address we resolved: the proxy connects to it, so DNS stays ours. */
  ip: string;
  port: number;
  /** Deadline for the whole of it: reaching the proxy, its handshake and its connect. */
  timeoutMs: number;
  proxy: SocksProxy;
  signal?: AbortSignal;
}

/**
 * A TCP connection to `ip:port` made by a SOCKS5 proxy. Failures are `SmtpConnectionError`s whose
 * reason says whether the proxy (`SmtpProxyError`) or the MX host failed; none names the password.
 */
export async function connectThroughProxy(options: ProxiedConnectOptions): Promise<Socket> {
  options.signal?.throwIfAborted();
  const { proxy } = options;
  const connecting = SocksClient.createConnection({
    command: 'connect',
    destination: { host: options.ip, port: options.port },
    proxy: {
      host: proxy.host,
      port: proxy.port,
      type: 5,
      ...(proxy.credentials ? { userId: proxy.credentials.user, password: proxy.credentials.password } : {}),
    },
    timeout: options.timeoutMs,
  });
  const signal = options.signal;
  if (!signal) return connecting.then(({ socket }) => socket, (error: unknown) => Promise.reject(translate(error, options)));
  return new Promise<Socket>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    connecting.then(
      ({ socket }) => {
        signal.removeEventListener('abort', onAbort);
        // Too late: nobody waits for this connection any more.
        if (signal.aborted) socket.destroy();
        else resolve(socket);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(translate(error, options));
      },
    );
  });
}

/**
 * socks' error messages (its ERRORS constants, SOCKS5 reply names after " - ", socket errors by
 * message only) as reasons. The socks error is not kept as the cause: it carries the proxy options,
 * password included.
 */
function translate(error: unknown, options: ProxiedConnectOptions): SmtpConnectionError {
  const message = error instanceof Error ? error.message : String(error);
  const via = `SOCKS5 proxy ${options.proxy.label}`;
  const target = `${options.host}:${options.port}`;
  if (message.startsWith('Socks5 Authentication failed'))
    return new SmtpProxyError(options.host, `${via} refused the credentials`);
  if (message.includes('no accepted authentication type'))
    return new SmtpProxyError(
      options.host,
      options.proxy.credentials
        ? `${via} accepts no authentication method offered (user/password)`
        : `${via} requires credentials (socks5://user:pass@host:port)`,
    );
  if (message.startsWith('Proxy connection timed out'))
    return new SmtpTimeoutError(options.host, 'connect', `timeout connecting to ${target} through ${via}`);
  const rejected = /^Socks5 proxy rejected connection - (\w+)/.exec(message)?.[1];
  if (rejected === 'ConnectionRefused')
    return new SmtpConnectRefusedError(options.host, `connection refused by ${target} (through ${via})`);
  if (rejected === 'HostUnreachable' || rejected === 'NetworkUnreachable' || rejected === 'TTLExpired')
    return new SmtpConnectRefusedError(options.host, `connection to ${target} failed (${rejected} through ${via})`);
  if (rejected) return new SmtpProxyError(options.host, `${via} would not connect to ${target} (${rejected})`);
  if (message === 'Socket closed')
    return new SmtpProxyError(options.host, `${via} closed the connection during the SOCKS handshake`);
  const code = /\b(E[A-Z]{3,})\b/.exec(message)?.[1];
  if (code) return new SmtpProxyError(options.host, `${via} unreachable (${code})`);
  return new SmtpProxyError(options.host, `${via} failed: ${message}`);
}
