import type { SmtpReply } from './smtp-reply.ts';

/**
 * Words that only ever describe the sending side: a blocklist by name or kind, a block code, the client's
 * reverse DNS, its HELO, or its address refused outright (CONTRACT §13).
 */
const NAMES_THE_CLIENT =
  /spamhaus|spamcop|\bsorbs\b|uceprotect|barracuda reputation|\bdnsbls?\b|\brbls?\b|block ?list(?:ed)?|black ?list(?:ed)?|\[BL\d+\]|\[TSS09\]|dnsbl-lookup|ipcheck\.proofpoint|reverse (?:host ?name|dns)|cannot find your (?:reverse )?hostname|\bPTR record|client host (?:rejected|\[)|helo command rejected|not authori[sz]ed to send email directly/i;
/** Words of a refusal that may concern the client or the recipient; the rest of the text must say which. */
const REFUSAL = /\b(?:blocked|listed|banned|denied|reputation|rejected|not accepted)\b/i;
/** The refusal is about the sending host: its address, its connection, its network. */
const ABOUT_THE_CLIENT =
  /\b\d{1,3}(?:\.\d{1,3}){3}\b|\bIP\b|\byour (?:host|server|network|address|domain's IP)\b|\bsending (?:host|server)\b|\bconnections?\b/i;
/** The refusal is about the address asked for (Domino's "User not listed", EOP's "Recipient address rejected"). */
const ABOUT_THE_MAILBOX = /\b(?:user|recipient|mailbox|account)\b/i;

/**
 * Whether a reply at connect, EHLO, MAIL or RCPT refuses our egress (its address is on a blocklist, its reverse
 * DNS or HELO does not satisfy the host, it is banned) rather than say anything about the mailbox. Such a reply
 * must never make an address Invalid: the address is asked again from another egress.
 */
export function blamesEgress(reply: SmtpReply): boolean {
  if (reply.code < 400) return false;
  // RFC 3463 x.1.x and x.2.x are about the address or the mailbox, whatever the text adds.
  const subject = reply.enhanced?.split('.')[1];
  if (subject === '1' || subject === '2') return false;
  const { text } = reply;
  if (NAMES_THE_CLIENT.test(text)) return true;
  return REFUSAL.test(text) && ABOUT_THE_CLIENT.test(text) && !ABOUT_THE_MAILBOX.test(text);
}
