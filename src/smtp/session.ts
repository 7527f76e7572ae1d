import type { SmtpReply } from '../domain/smtp-reply.ts';
import type { SocksProxy } from '../domain/socks-proxy.ts';
import { SmtpConnection, type TlsResumption } from './connection.ts';
import { SmtpConnectionError, SmtpSessionRefusedError } from './errors.ts';

export interface SessionOptions {
  host: string;
  ip: string;
  port: number;
  helo: string;
  /** Deadline for the connect and for every reply. */
  timeoutMs: number;
  /** Use STARTTLS when the server offers it. */
  startTls: boolean;
  signal?: AbortSignal;
  /** The host's TLS session cache (see TlsResumption). */
  tls?: TlsResumption;
  /** The egress: a SOCKS5 proxy, or direct when absent. */
  proxy?: SocksProxy | null;
}

const isPositive = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;

/** EHLO keywords (RFC 5321 §4.1.1.1): the first word of every line after the first. */
function extensionsOf(reply: SmtpReply): Set<string> {
  const keywords = reply.lines
    .slice(1)
    .map((line) => line.slice(4).trim().split(/\s+/, 1)[0]?.toUpperCase() ?? '');
  return new Set(keywords.filter((keyword) => keyword !== ''));
}

/**
 * An SMTP session ready for mail transactions: greeting read, EHLO (or HELO) done, TLS started
 * when offered. Only envelope commands are ever sent: MAIL, RCPT, RSET and QUIT, never DATA.
 */
export class SmtpSession {
  readonly host: string;
  readonly greeting: SmtpReply;
  readonly extensions: Set<string>;
  readonly #connection: SmtpConnection;

  private constructor(connection: SmtpConnection, greeting: SmtpReply, extensions: Set<string>) {
    this.host = connection.host;
    this.#connection = connection;
    this.greeting = greeting;
    this.extensions = extensions;
  }

  /** Connects and negotiates; throws an `SmtpConnectionError` when the host cannot be used. */
  static async open(options: SessionOptions): Promise<SmtpSession> {
    const connection = await SmtpConnection.open(options);
    try {
      const greeting = await connection.readReply('greeting');
      if (greeting.code !== 220) throw new SmtpSessionRefusedError(options.host, 'session', greeting);
      let extensions = await SmtpSession.#hello(connection, options);
      if (options.startTls && extensions.has('STARTTLS')) {
        const ready = await connection.command('STARTTLS');
        if (ready.code === 220) {
          await connection.upgradeToTls(options.tls);
          // RFC 3207 §4.2: everything learnt before TLS is discarded, so greet again.
          extensions = await SmtpSession.#hello(connection, options);
        } else if (ready.code === 421) {
          throw new SmtpSessionRefusedError(options.host, 'STARTTLS', ready);
        }
      }
      return new SmtpSession(connection, greeting, extensions);
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  static async #hello(connection: SmtpConnection, options: SessionOptions): Promise<Set<string>> {
    const ehlo = await connection.command(`EHLO ${options.helo}`);
    if (isPositive(ehlo)) return extensionsOf(ehlo);
    // Only a permanent refusal means "EHLO not understood"; a 4xx or 421 is the server saying no.
    if (ehlo.code < 500) throw new SmtpSessionRefusedError(options.host, 'EHLO', ehlo);
    const helo = await connection.command(`HELO ${options.helo}`);
    if (!isPositive(helo)) throw new SmtpSessionRefusedError(options.host, 'HELO', helo);
    return new Set();
  }

  get isTls(): boolean {
    return this.#connection.isTls;
  }

  get isOpen(): boolean {
    return this.#connection.isOpen;
  }

  mailFrom(from: string): Promise<SmtpReply> {
    return this.#connection.command(`MAIL FROM:<${from}>`);
  }

  rcptTo(address: string): Promise<SmtpReply> {
    return this.#connection.command(`RCPT TO:<${address}>`);
  }

  /** The server advertised PIPELINING (RFC 2920): RCPTs may go out in windows. */
  get pipelining(): boolean {
    return this.extensions.has('PIPELINING');
  }

  /**
   * RCPT for every address of `addresses` written at once (after MAIL FROM when `from` is given, in
   * the same write: RFC 2920 lets a client group them), replies read in order. The MAIL reply comes
   * back; `onReply` sees each RCPT reply as it comes and returns false to stop reading (the session
   * must then be closed, since the unread replies would answer later commands). A MAIL that was
   * refused leaves the RCPT replies unread. The first broken read rejects.
   */
  async rcptWindow(
    addresses: readonly string[],
    onReply: (index: number, reply: SmtpReply) => boolean,
    from?: string,
  ): Promise<SmtpReply | null> {
    const lines = addresses.map((address) => `RCPT TO:<${address}>`);
    this.#connection.send(from === undefined ? lines : [`MAIL FROM:<${from}>`, ...lines]);
    const mail = from === undefined ? null : await this.#connection.readReply('MAIL');
    if (mail && !isPositive(mail)) return mail;
    for (let i = 0; i < addresses.length; i += 1) {
      if (!onReply(i, await this.#connection.readReply('RCPT'))) break;
    }
    return mail;
  }

  rset(): Promise<SmtpReply> {
    return this.#connection.command('RSET');
  }

  /** Polite goodbye: QUIT and wait (bounded) for the 221, then close whatever happened. */
  async quit(): Promise<void> {
    if (!this.#connection.isOpen) return;
    try {
      await this.#connection.command('QUIT');
    } catch (error) {
      if (!(error instanceof SmtpConnectionError)) throw error;
    } finally {
      this.#connection.close();
    }
  }

  close(): void {
    this.#connection.close();
  }
}
