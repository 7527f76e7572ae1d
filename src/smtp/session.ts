import { uuidv7 } from 'uuidv7';
import type { SmtpReply } from '../domain/smtp-reply.ts';
import type { SocksProxy } from '../domain/socks-proxy.ts';
import {
  type AttemptTranscript,
  clientLine,
  type SessionOpening,
  serverLines,
  type TranscriptLine,
} from '../domain/smtp-transcript.ts';
import { SmtpConnection, type TlsResumption } from './connection.ts';
import type { OpenSockets } from './open-sockets.ts';
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
  /** Local address a direct connection binds to. */
  localAddress?: string;
  /** Registers the connection's socket (see OpenSockets). */
  sockets?: OpenSockets;
}

const isPositive = (reply: SmtpReply): boolean => reply.code >= 200 && reply.code < 300;

/** EHLO keywords (RFC 5321 §4.1.1.1): the first word of every line after the first. */
function extensionsOf(reply: SmtpReply): Set<string> {
  const keywords = reply.lines
    .slice(1)
    .map((line) => line.slice(4).trim().split(/\s+/, 1)[0]?.toUpperCase() ?? '');
  return new Set(keywords.filter((keyword) => keyword !== ''));
}

/** Sends one command and reads its reply, both noted in `lines` (the command before the reply can fail). */
async function exchange(connection: SmtpConnection, lines: TranscriptLine[], command: string): Promise<SmtpReply> {
  lines.push(clientLine(command));
  const reply = await connection.command(command);
  lines.push(...serverLines(reply));
  return reply;
}

/**
 * An SMTP session ready for mail transactions: greeting read, EHLO (or HELO) done, TLS started
 * when offered. Only envelope commands are ever sent: MAIL, RCPT, RSET and QUIT, never DATA.
 * It keeps the lines of its opening and of the current transaction, for each address's transcript.
 */
export class SmtpSession {
  readonly host: string;
  readonly greeting: SmtpReply;
  readonly extensions: Set<string>;
  readonly opening: SessionOpening;
  readonly #connection: SmtpConnection;
  /** The current transaction's MAIL FROM and its reply. */
  #mail: TranscriptLine[] = [];
  /** When each RCPT of the current transaction was written. */
  #rcptSentAt = new Map<string, string>();
  #quitSent = false;

  private constructor(
    connection: SmtpConnection,
    greeting: SmtpReply,
    extensions: Set<string>,
    opening: SessionOpening,
  ) {
    this.host = connection.host;
    this.#connection = connection;
    this.greeting = greeting;
    this.extensions = extensions;
    this.opening = opening;
  }

  /**
   * Connects and negotiates; throws an `SmtpConnectionError` when the host cannot be used, its
   * `opening` holding the lines seen until then.
   */
  static async open(options: SessionOptions): Promise<SmtpSession> {
    const opening: SessionOpening = {
      id: uuidv7(),
      at: new Date().toISOString(),
      mxHost: options.host,
      ip: options.ip,
      lines: [],
    };
    let connection: SmtpConnection | null = null;
    try {
      connection = await SmtpConnection.open(options);
      const greeting = await connection.readReply('greeting');
      opening.lines.push(...serverLines(greeting));
      if (greeting.code !== 220) throw new SmtpSessionRefusedError(options.host, 'session', greeting);
      let extensions = await SmtpSession.#hello(connection, options, opening.lines);
      if (options.startTls && extensions.has('STARTTLS')) {
        const ready = await exchange(connection, opening.lines, 'STARTTLS');
        if (ready.code === 220) {
          await connection.upgradeToTls(options.tls);
          // RFC 3207 §4.2: everything learnt before TLS is discarded, so greet again.
          extensions = await SmtpSession.#hello(connection, options, opening.lines);
        } else if (ready.code === 421) {
          throw new SmtpSessionRefusedError(options.host, 'STARTTLS', ready);
        }
      }
      return new SmtpSession(connection, greeting, extensions, opening);
    } catch (error) {
      connection?.close();
      if (error instanceof SmtpConnectionError) error.opening ??= opening;
      throw error;
    }
  }

  static async #hello(connection: SmtpConnection, options: SessionOptions, lines: TranscriptLine[]): Promise<Set<string>> {
    const ehlo = await exchange(connection, lines, `EHLO ${options.helo}`);
    if (isPositive(ehlo)) return extensionsOf(ehlo);
    // Only a permanent refusal means "EHLO not understood"; a 4xx or 421 is the server saying no.
    if (ehlo.code < 500) throw new SmtpSessionRefusedError(options.host, 'EHLO', ehlo);
    const helo = await exchange(connection, lines, `HELO ${options.helo}`);
    if (!isPositive(helo)) throw new SmtpSessionRefusedError(options.host, 'HELO', helo);
    return new Set();
  }

  /**
   * `address`'s attempt in the current transaction: the opening, MAIL FROM and its reply, then its
   * RCPT when one was written and `reply` when one came.
   */
  attempt(address: string, reply?: SmtpReply): AttemptTranscript {
    const sentAt = this.#rcptSentAt.get(address);
    const lines = [...this.#mail];
    if (sentAt !== undefined) lines.push(clientLine(`RCPT TO:<${address}>`));
    if (reply) lines.push(...serverLines(reply));
    return { at: sentAt ?? new Date().toISOString(), opening: this.opening, lines };
  }

  #newTransaction(from: string): void {
    this.#mail = [clientLine(`MAIL FROM:<${from}>`)];
    this.#rcptSentAt = new Map();
  }

  get isTls(): boolean {
    return this.#connection.isTls;
  }

  get isOpen(): boolean {
    return this.#connection.isOpen;
  }

  async mailFrom(from: string): Promise<SmtpReply> {
    this.#newTransaction(from);
    const reply = await this.#connection.command(`MAIL FROM:<${from}>`);
    this.#mail.push(...serverLines(reply));
    return reply;
  }

  /** The server advertised PIPELINING (RFC 2920): RCPTs may go out in windows. */
  get pipelining(): boolean {
    return this.extensions.has('PIPELINING');
  }

  /**
   * RCPT for every address of `addresses` written at once (after MAIL FROM when `from` is given, in
   * the same write: RFC 2920 lets a client group them), replies read in order. The MAIL reply comes
   * back; `onReply` sees each RCPT reply as it comes, with the address's attempt, and returns false
   * to stop reading (the session must then be closed, since the unread replies would answer later
   * commands). A MAIL that was refused leaves the RCPT replies unread. The first broken read rejects.
   */
  async rcptWindow(
    addresses: readonly string[],
    onReply: (index: number, reply: SmtpReply, attempt: AttemptTranscript) => boolean,
    from?: string,
  ): Promise<SmtpReply | null> {
    const lines = addresses.map((address) => `RCPT TO:<${address}>`);
    if (from !== undefined) this.#newTransaction(from);
    const at = new Date().toISOString();
    for (const address of addresses) this.#rcptSentAt.set(address, at);
    this.#connection.send(from === undefined ? lines : [`MAIL FROM:<${from}>`, ...lines]);
    const mail = from === undefined ? null : await this.#connection.readReply('MAIL');
    if (mail) this.#mail.push(...serverLines(mail));
    if (mail && !isPositive(mail)) return mail;
    for (let i = 0; i < addresses.length; i += 1) {
      const reply = await this.#connection.readReply('RCPT');
      if (!onReply(i, reply, this.attempt(addresses[i] ?? '', reply))) break;
    }
    return mail;
  }

  rset(): Promise<SmtpReply> {
    this.#mail = [];
    this.#rcptSentAt = new Map();
    return this.#connection.command('RSET');
  }

  /**
   * QUIT written while RCPT replies are still on their way (RFC 2920 lets it end a group): the server answers it
   * and closes right after the last of them, instead of a round trip later. The session asks nothing more.
   */
  sendQuit(): void {
    if (this.#quitSent) return;
    this.#quitSent = true;
    this.#connection.send(['QUIT']);
  }

  /** QUIT is written: no further command may follow. */
  get quitting(): boolean {
    return this.#quitSent;
  }

  /**
   * Polite goodbye: QUIT (unless written already) and wait (bounded) for the 221 and the server's close, then close
   * whatever happened.
   */
  async quit(): Promise<void> {
    if (!this.#connection.isOpen) return;
    try {
      if (!this.#quitSent) {
        this.#quitSent = true;
        await this.#connection.command('QUIT');
      }
      await this.#connection.closeAfterPeer();
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
