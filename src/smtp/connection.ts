import { connect as netConnect, isIP } from 'node:net';
import type { Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, type SecureContext } from 'node:tls';
import type { SmtpReply } from '../domain/smtp-reply.ts';
import type { SocksProxy } from '../domain/socks-proxy.ts';
import { ReplyAssembler, SmtpReplySyntaxError } from '../domain/smtp-reply.ts';
import {
  SmtpConnectRefusedError,
  SmtpDroppedError,
  SmtpProtocolError,
  SmtpTimeoutError,
  SmtpTlsError,
} from './errors.ts';
import type { OpenSockets } from './open-sockets.ts';
import { connectThroughProxy } from './socks-connect.ts';

let sharedContext: SecureContext | undefined;
/**
 * One client context for every STARTTLS: without it Node builds a context (and loads the CA store) per
 * handshake, about a millisecond of the event loop each, which a flat job pays once per session.
 */
const clientContext = (): SecureContext => (sharedContext ??= createSecureContext());

export interface ConnectOptions {
  /** MX host name, used in reasons and as the TLS server name. */
  host: string;
  ip: string;
  port: number;
  /** Deadline for the TCP connect and for every reply. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** The egress: this SOCKS5 proxy connects to `ip:port`; direct when absent. */
  proxy?: SocksProxy | null;
  /** Local address a direct connection binds to (an egress of `SMTP_SOURCE_ADDRESSES`). */
  localAddress?: string;
  /** Where the raw socket is registered, so the session's slot is freed only once it has closed. */
  sockets?: OpenSockets;
}

/**
 * A host's last TLS session ticket: the next connection resumes it (an abbreviated handshake,
 * no certificate and no key exchange signature on either side), as MTAs' TLS session caches do.
 */
export interface TlsResumption {
  session: Buffer | undefined;
  remember: (session: Buffer) => void;
}

/** Longest wait for a server to close after its 221: one that never does keeps the slot no longer than this. */
const PEER_CLOSE_WAIT_MS = 2_000;

interface PendingRead {
  stage: string;
  resolve: (reply: SmtpReply) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One TCP (later TLS) connection to an SMTP server: writes command lines and hands back whole
 * replies, each within the deadline. Any timeout or breakage is final: the connection is destroyed,
 * because after a missed reply the command/reply pairing can no longer be trusted.
 */
export class SmtpConnection {
  readonly host: string;
  readonly label: string;
  readonly #timeoutMs: number;
  readonly #signal: AbortSignal | undefined;
  #socket: Socket;
  #assembler = new ReplyAssembler();
  #queued: SmtpReply[] = [];
  #pending: PendingRead | null = null;
  #failure: Error | null = null;
  #lastStage = 'connect';
  #tls = false;

  private constructor(socket: Socket, options: ConnectOptions) {
    this.host = options.host;
    this.label = `${options.host}:${options.port}`;
    this.#timeoutMs = options.timeoutMs;
    this.#signal = options.signal;
    this.#socket = socket;
    // Direct or through a proxy: pipelined windows go out in one write, and a lone command (RSET,
    // QUIT) must not wait for the ACK of the last one.
    socket.setNoDelay(true);
    this.#attach(socket);
    this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  /** Opens the TCP connection; the greeting is read with `readReply('greeting')`. */
  static open(options: ConnectOptions): Promise<SmtpConnection> {
    options.signal?.throwIfAborted();
    if (options.proxy)
      return connectThroughProxy({ ...options, proxy: options.proxy }).then((socket) => {
        options.sockets?.track(socket);
        return new SmtpConnection(socket, options);
      });
    const label = `${options.host}:${options.port}`;
    return new Promise((resolve, reject) => {
      const socket = netConnect({
        host: options.ip,
        port: options.port,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      });
      options.sockets?.track(socket);
      const cleanup = (): void => {
        clearTimeout(timer);
        socket.removeListener('connect', onConnect);
        socket.removeListener('error', onError);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const fail = (error: Error): void => {
        cleanup();
        socket.destroy();
        reject(error);
      };
      const onConnect = (): void => {
        cleanup();
        resolve(new SmtpConnection(socket, options));
      };
      const onError = (error: Error): void => {
        const code = 'code' in error ? String(error.code) : '';
        fail(
          code === 'ECONNREFUSED'
            ? new SmtpConnectRefusedError(options.host, `connection refused by ${label}`, { cause: error })
            : new SmtpConnectRefusedError(
                options.host,
                `connection to ${label} failed (${code || error.message})`,
                { cause: error },
              ),
        );
      };
      const onAbort = (): void =>
        fail(options.signal?.reason instanceof Error ? options.signal.reason : new Error('aborted'));
      const timer = setTimeout(
        () => fail(new SmtpTimeoutError(options.host, 'connect', `timeout connecting to ${label}`)),
        options.timeoutMs,
      );
      socket.once('connect', onConnect);
      socket.once('error', onError);
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  get isTls(): boolean {
    return this.#tls;
  }

  get isOpen(): boolean {
    return this.#failure === null;
  }

  /** Next reply from the server, within the deadline. `stage` names what it answers, for reasons. */
  readReply(stage: string): Promise<SmtpReply> {
    this.#lastStage = stage;
    // A reply that arrived before the connection closed (a 421 and hang-up) is still the server's answer.
    const queued = this.#queued.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const what =
          stage === 'greeting'
            ? `timeout waiting for greeting from ${this.label}`
            : `timeout after ${stage} on ${this.label}`;
        this.#fail(new SmtpTimeoutError(this.host, stage, what));
      }, this.#timeoutMs);
      this.#pending = { stage, resolve, reject, timer };
    });
  }

  /** Writes command lines at once without reading (RFC 2920 pipelining); read their replies in order. */
  send(lines: readonly string[]): void {
    if (!this.#failure) this.#socket.write(lines.map((line) => `${line}\r\n`).join(''));
  }

  /** Sends one command line and reads its reply. `stage` defaults to the command verb. */
  command(line: string, stage = line.split(' ', 1)[0]?.toUpperCase() ?? line): Promise<SmtpReply> {
    if (!this.#failure) this.#socket.write(`${line}\r\n`);
    return this.readReply(stage);
  }

  /**
   * Wraps the connection in TLS after a 220 to STARTTLS. Certificates are not checked: a prober
   * only wants the server's answers, and MX certificates are often self-signed or mismatched.
   */
  async upgradeToTls(resumption?: TlsResumption): Promise<void> {
    if (this.#failure) throw this.#failure;
    const raw = this.#socket;
    this.#detach(raw);
    const secure = tlsConnect({
      socket: raw,
      secureContext: clientContext(),
      rejectUnauthorized: false,
      ...(isIP(this.host) === 0 ? { servername: this.host } : {}),
      ...(resumption?.session ? { session: resumption.session } : {}),
    });
    if (resumption) secure.on('session', (session: Buffer) => resumption.remember(session));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new SmtpTlsError(this.host, `timeout in TLS handshake with ${this.label}`)),
          this.#timeoutMs,
        );
        const settle = (error?: Error): void => {
          clearTimeout(timer);
          secure.removeListener('secureConnect', onSecure);
          secure.removeListener('error', onError);
          secure.removeListener('close', onClose);
          if (error) reject(error);
          else resolve();
        };
        const onSecure = (): void => settle();
        const onError = (error: Error): void =>
          settle(
            new SmtpTlsError(this.host, `TLS handshake with ${this.label} failed: ${error.message}`, {
              cause: error,
            }),
          );
        const onClose = (): void =>
          settle(new SmtpTlsError(this.host, `connection closed by ${this.label} during TLS handshake`));
        secure.once('secureConnect', onSecure);
        secure.once('error', onError);
        secure.once('close', onClose);
      });
    } catch (error) {
      secure.on('error', () => undefined);
      secure.destroy();
      raw.destroy();
      this.#fail(error instanceof Error ? error : new SmtpTlsError(this.host, String(error)));
      throw error;
    }
    this.#socket = secure;
    this.#tls = true;
    this.#assembler = new ReplyAssembler();
    this.#attach(secure);
  }

  /**
   * After QUIT was answered the server closes first (RFC 5321 §4.1.1.10): waits for that, bounded, then closes
   * ours. Through a proxy this is how we learn that the host's side of the connection is gone too.
   */
  async closeAfterPeer(): Promise<void> {
    const socket = this.#socket;
    if (!this.#failure && !socket.readableEnded) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          socket.removeListener('end', done);
          socket.removeListener('close', done);
          resolve();
        };
        const timer = setTimeout(done, Math.min(this.#timeoutMs, PEER_CLOSE_WAIT_MS));
        socket.once('end', done);
        socket.once('close', done);
      });
    }
    this.close();
  }

  /** Ends the connection at once. */
  close(): void {
    this.#fail(new SmtpDroppedError(this.host, `connection to ${this.label} closed`));
  }

  #attach(socket: Socket): void {
    socket.setEncoding('utf8');
    socket.on('data', this.#onData);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
  }

  #detach(socket: Socket): void {
    socket.removeListener('data', this.#onData);
    socket.removeListener('error', this.#onError);
    socket.removeListener('close', this.#onClose);
  }

  // A Buffer too: socks hands on what arrived with its handshake reply as raw bytes.
  #onData = (chunk: string | Buffer): void => {
    let replies: SmtpReply[];
    try {
      replies = this.#assembler.push(chunk.toString());
    } catch (error) {
      const detail = error instanceof SmtpReplySyntaxError ? error.message : String(error);
      this.#fail(
        new SmtpProtocolError(this.host, `${this.label} answered ${this.#lastStage} with ${detail}`, {
          cause: error,
        }),
      );
      return;
    }
    for (const reply of replies) {
      const pending = this.#pending;
      if (pending) {
        this.#pending = null;
        clearTimeout(pending.timer);
        pending.resolve(reply);
      } else {
        this.#queued.push(reply);
      }
    }
  };

  #onError = (error: Error): void => {
    this.#fail(
      new SmtpDroppedError(
        this.host,
        `connection to ${this.label} broke after ${this.#lastStage} (${error.message})`,
        { cause: error },
      ),
    );
  };

  #onClose = (): void => {
    const what = this.#lastStage === 'greeting' ? 'before the greeting' : `after ${this.#lastStage}`;
    this.#fail(new SmtpDroppedError(this.host, `connection dropped by ${this.label} ${what}`));
  };

  #onAbort = (): void => {
    const reason: unknown = this.#signal?.reason;
    this.#fail(reason instanceof Error ? reason : new Error('aborted'));
  };

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#signal?.removeEventListener('abort', this.#onAbort);
    this.#detach(this.#socket);
    // A late error event after destroy must not become an uncaught exception.
    this.#socket.on('error', () => undefined);
    this.#socket.destroy();
    const pending = this.#pending;
    this.#pending = null;
    if (pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
  }
}
