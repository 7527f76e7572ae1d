/** One complete SMTP reply (RFC 5321 §4.2), possibly assembled from several lines. */
export interface SmtpReply {
  code: number;
  /** RFC 3463 enhanced status code (`5.1.1`) when the server sent one, else null. */
  enhanced: string | null;
  /** Human text of all lines, code and enhanced code removed, joined with spaces. */
  text: string;
  /** Raw lines as received, without line endings. */
  lines: string[];
}

export class SmtpReplySyntaxError extends Error {
  override readonly name = 'SmtpReplySyntaxError';
  readonly line: string;
  constructor(line: string) {
    super(`malformed SMTP reply line: ${JSON.stringify(line.slice(0, 120))}`);
    this.line = line;
  }
}

const REPLY_LINE = /^([2-5][0-9][0-9])(?:([ -])(.*))?$/;
// Some servers (older Exchange) prefix the enhanced code with '#'.
const ENHANCED_CODE = /^#?([245])\.(\d{1,3})\.(\d{1,3})(?=\s|$)/;
// A reply line longer than this without a line ending is garbage or an attack, not SMTP.
const MAX_PENDING_CHARS = 64 * 1024;

function splitEnhanced(code: number, rest: string): { enhanced: string | null; text: string } {
  const match = ENHANCED_CODE.exec(rest);
  // An enhanced code whose class disagrees with the reply code is not trustworthy (RFC 3463 §2).
  if (!match || Number(match[1]) !== Math.floor(code / 100)) return { enhanced: null, text: rest.trim() };
  return {
    enhanced: `${match[1]}.${Number(match[2])}.${Number(match[3])}`,
    text: rest.slice(match[0].length).trim(),
  };
}

/** Builds a reply from its lines (`250-first`, ..., `250 last`). */
export function parseReply(lines: readonly string[]): SmtpReply {
  if (lines.length === 0) throw new SmtpReplySyntaxError('');
  let code = 0;
  let enhanced: string | null = null;
  const texts: string[] = [];
  for (const line of lines) {
    const match = REPLY_LINE.exec(line);
    if (!match) throw new SmtpReplySyntaxError(line);
    code = Number(match[1]);
    const part = splitEnhanced(code, match[3] ?? '');
    enhanced ??= part.enhanced;
    if (part.text !== '') texts.push(part.text);
  }
  return { code, enhanced, text: texts.join(' '), lines: [...lines] };
}

/**
 * Incremental reply reader: feed it socket text as it arrives, get back every reply completed so far.
 * A line `ddd-...` continues the reply; `ddd ...` or a bare `ddd` ends it. Bare LF is tolerated.
 */
export class ReplyAssembler {
  #pending = '';
  #lines: string[] = [];

  push(chunk: string): SmtpReply[] {
    this.#pending += chunk;
    const replies: SmtpReply[] = [];
    let newline = this.#pending.indexOf('\n');
    while (newline >= 0) {
      const line = this.#pending.slice(0, newline).replace(/\r$/, '');
      this.#pending = this.#pending.slice(newline + 1);
      newline = this.#pending.indexOf('\n');
      const match = REPLY_LINE.exec(line);
      if (!match) throw new SmtpReplySyntaxError(line);
      this.#lines.push(line);
      if (match[2] !== '-') {
        replies.push(parseReply(this.#lines));
        this.#lines = [];
      }
    }
    if (this.#pending.length > MAX_PENDING_CHARS) throw new SmtpReplySyntaxError(this.#pending);
    return replies;
  }
}

/** `550 5.1.1 text`, the form kept as an outcome's reason. */
export function formatReply(reply: SmtpReply): string {
  return [String(reply.code), reply.enhanced ?? '', reply.text].filter((part) => part !== '').join(' ');
}

/**
 * What a RCPT (or MAIL) reply says about the address:
 * - `accepted`: 2xx, the server takes mail for it;
 * - `mailbox-unknown`: the mailbox does not exist (→ Invalid);
 * - `policy`: a block, reputation or policy refusal that says nothing about the mailbox (→ Unknown);
 * - `too-many-recipients`: the session's recipient budget is spent, continue on a new session;
 * - `closing`: 421, the server is closing the connection, continue on a new connection;
 * - `temporary`: any other 4xx (greylisting, local trouble): retry after a delay;
 * - `rejected`: another permanent refusal that does not identify the mailbox as unknown (→ Unknown).
 */
export type ReplyClass =
  'accepted' | 'mailbox-unknown' | 'policy' | 'too-many-recipients' | 'closing' | 'temporary' | 'rejected';

const POLICY_TEXT =
  /\b(?:block(?:ed|list(?:ed)?)|black ?list(?:ed)?|spamhaus|spamcop|barracuda|rbl|dnsbl|policy|policies|reputation|access denied|not authori[sz]ed|relay(?:ing)? (?:access )?denied|spam|banned|abuse)\b/i;
const MAILBOX_UNKNOWN_TEXT =
  /\b(?:user unknown|unknown user|no such (?:user|mailbox|recipient|address)|(?:user|mailbox|recipient|address|account) (?:does not|doesn't) exist|does not exist|mailbox (?:unavailable|not found|does not exist)|recipient (?:not found|unknown)|unknown (?:recipient|mailbox)|invalid (?:recipient|mailbox|address)|not a valid (?:mailbox|recipient)|no mailbox|recipient address rejected|undeliverable address|(?:does not|doesn't) have an? [\w.-]+ account|user not found|account (?:is )?disabled|mailbox (?:is )?disabled)\b/i;
const TOO_MANY_RECIPIENTS_TEXT = /\btoo many recipients\b/i;

/** Class from the enhanced code alone (RFC 3463), or null when the code does not settle it. */
function classifyEnhanced(enhanced: string): ReplyClass | null {
  const [klass, subject, detail] = enhanced.split('.').map(Number);
  if (subject === 5 && detail === 3) return 'too-many-recipients';
  if (klass === 4) return null;
  if (subject === 7) return 'policy';
  if (subject === 1) {
    // x.1.1 bad mailbox, x.1.2 bad system, x.1.3 bad syntax, x.1.6 moved, x.1.10 null MX (RFC 7505).
    // x.1.0 (other address status) says only "address", so the text decides.
    if (detail === 1 || detail === 2 || detail === 3 || detail === 6 || detail === 10)
      return 'mailbox-unknown';
    return null;
  }
  // x.2.1: mailbox disabled, not accepting messages (Gmail's "account ... is disabled").
  if (subject === 2 && detail === 1) return 'mailbox-unknown';
  return null;
}

/** Classifies a reply to RCPT TO: enhanced code first, reply text second, basic code last. */
export function classifyRcptReply(reply: SmtpReply): ReplyClass {
  const { code } = reply;
  if (code >= 200 && code < 300) return 'accepted';
  if (code === 421) return 'closing';
  const fromEnhanced = reply.enhanced === null ? null : classifyEnhanced(reply.enhanced);
  if (fromEnhanced !== null) return fromEnhanced;
  if (TOO_MANY_RECIPIENTS_TEXT.test(reply.text)) return 'too-many-recipients';
  if (code >= 400 && code < 500) {
    // A bare 452 is "too many recipients" (RFC 5321 §4.5.3.1.10) unless the enhanced code said otherwise.
    return code === 452 && reply.enhanced === null ? 'too-many-recipients' : 'temporary';
  }
  if (POLICY_TEXT.test(reply.text)) return 'policy';
  if (MAILBOX_UNKNOWN_TEXT.test(reply.text)) return 'mailbox-unknown';
  if (code === 550 || code === 551 || code === 553) return 'mailbox-unknown';
  return 'rejected';
}
