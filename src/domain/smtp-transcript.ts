import type { SmtpReply } from './smtp-reply.ts';

/** One line of an SMTP dialogue as it was on the wire (inside TLS once started), without its line ending. */
export interface TranscriptLine {
  dir: 'C' | 'S';
  text: string;
}

/**
 * A session's lines up to its first transaction (greeting, EHLO, STARTTLS, EHLO again), or up to
 * where it broke. Every address asked in the session shares this one object, so it is stored once.
 */
export interface SessionOpening {
  id: string;
  /** ISO time the connection was opened. */
  at: string;
  mxHost: string;
  ip: string;
  lines: TranscriptLine[];
}

/** One SMTP attempt for one address: the session it was made in, then its own lines (MAIL FROM, its RCPT). */
export interface AttemptTranscript {
  /** ISO time of the attempt (its RCPT written, or the session ending without one). */
  at: string;
  opening: SessionOpening;
  lines: TranscriptLine[];
}

export const clientLine = (text: string): TranscriptLine => ({ dir: 'C', text });
export const serverLines = (reply: SmtpReply): TranscriptLine[] => reply.lines.map((text) => ({ dir: 'S', text }));
