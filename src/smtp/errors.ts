import type { SmtpReply } from '../domain/smtp-reply.ts';
import { formatReply } from '../domain/smtp-reply.ts';
import type { SessionOpening } from '../domain/smtp-transcript.ts';

/** Base of every failure of an SMTP connection; `message` is the reason kept on an outcome. */
export class SmtpConnectionError extends Error {
  override readonly name: string = 'SmtpConnectionError';
  readonly host: string;
  /** The session's lines until it broke, when it broke while opening. */
  opening: SessionOpening | null = null;
  constructor(host: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.host = host;
  }
}

/** Nothing listens, or the host is unreachable. */
export class SmtpConnectRefusedError extends SmtpConnectionError {
  override readonly name = 'SmtpConnectRefusedError';
}

/** The SOCKS5 proxy of the egress failed (unreachable, refused the credentials, would not connect), not the MX host. */
export class SmtpProxyError extends SmtpConnectionError {
  override readonly name = 'SmtpProxyError';
}

/** No answer within the per-command deadline (`stage` is the command waited on, or `connect`/`greeting`). */
export class SmtpTimeoutError extends SmtpConnectionError {
  override readonly name = 'SmtpTimeoutError';
  readonly stage: string;
  constructor(host: string, stage: string, message: string) {
    super(host, message);
    this.stage = stage;
  }
}

/** The server closed the connection (or it broke) while a reply was awaited. */
export class SmtpDroppedError extends SmtpConnectionError {
  override readonly name: string = 'SmtpDroppedError';
}

/** This process lost the session's shared-budget lease: the session is closed, its addresses asked again later. */
export class SmtpLeaseLostError extends SmtpDroppedError {
  override readonly name = 'SmtpLeaseLostError';
}

/** The server answered something that is not SMTP. */
export class SmtpProtocolError extends SmtpConnectionError {
  override readonly name = 'SmtpProtocolError';
}

/** The server refused the session before any transaction (greeting, EHLO/HELO). */
export class SmtpSessionRefusedError extends SmtpConnectionError {
  override readonly name = 'SmtpSessionRefusedError';
  readonly reply: SmtpReply;
  constructor(host: string, stage: string, reply: SmtpReply) {
    super(host, `${stage} refused by ${host}: ${formatReply(reply)}`);
    this.reply = reply;
  }
}

/** The TLS handshake after STARTTLS failed; the host may still be probed without TLS. */
export class SmtpTlsError extends SmtpConnectionError {
  override readonly name = 'SmtpTlsError';
}

/** Invalid prober configuration (thrown by the constructor). */
export class SmtpProberConfigError extends Error {
  override readonly name = 'SmtpProberConfigError';
}

/** An address handed to `probeDomain`/`precheckDomain` does not belong to the given domain. */
export class DomainMismatchError extends Error {
  override readonly name = 'DomainMismatchError';
  readonly email: string;
  readonly domain: string;
  constructor(email: string, domain: string) {
    super(`${email} does not belong to domain ${domain}`);
    this.email = email;
    this.domain = domain;
  }
}
