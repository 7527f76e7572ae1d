import { domainToASCII } from 'node:url';

/** RFC 5321 §4.5.3.1 size limits, in octets of the ASCII form. */
export const EMAIL_LIMITS = {
  localPart: 64,
  domain: 253, // 255 octets on the wire minus the length prefix and root label
  label: 63,
  address: 254, // the 256-octet path minus its angle brackets
} as const;

// RFC 5322 atext: the characters a dot-atom local part may hold.
const DOT_ATOM_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const ASCII_ONLY = /^[\x20-\x7e]*$/;
const HOST_ASCII_CHARS = /^[A-Za-z0-9.-]*$/;

/** Splits at the last `@`; `null` when there is none. */
function splitAddress(email: string): { local: string; domain: string } | null {
  const at = email.lastIndexOf('@');
  if (at < 0) return null;
  return { local: email.slice(0, at), domain: email.slice(at + 1) };
}

/**
 * Lower-cased ASCII (punycode) form of a domain, '' when it cannot be one.
 * ASCII characters outside letters, digits, dots and hyphens are refused before conversion
 * because the WHATWG host parser would otherwise percent-decode or accept them.
 */
export function toAsciiDomain(domain: string): string {
  const withoutNonAscii = domain.replace(/[^\p{ASCII}]/gu, '');
  if (!HOST_ASCII_CHARS.test(withoutNonAscii)) return '';
  if (withoutNonAscii === domain) return domain.toLowerCase();
  return domainToASCII(domain);
}

/** Trims, lower-cases the domain and converts an IDN domain to ASCII; the local part keeps its case. */
export function normalizeEmail(raw: string): string {
  const trimmed = raw.trim();
  const parts = splitAddress(trimmed);
  if (!parts) return trimmed;
  const ascii = toAsciiDomain(parts.domain);
  return `${parts.local}@${ascii === '' ? parts.domain.toLowerCase() : ascii}`;
}

/** Lower-cased ASCII domain of an address, '' when it has none. */
export function domainOf(email: string): string {
  const parts = splitAddress(email.trim());
  if (!parts) return '';
  return toAsciiDomain(parts.domain);
}

export function isValidDomainSyntax(asciiDomain: string): boolean {
  if (asciiDomain.length === 0 || asciiDomain.length > EMAIL_LIMITS.domain) return false;
  const labels = asciiDomain.split('.');
  if (labels.length < 2) return false;
  if (!labels.every((label) => label.length <= EMAIL_LIMITS.label && LDH_LABEL.test(label))) return false;
  // An all-numeric top label would make the domain indistinguishable from an IPv4 address.
  return !/^[0-9]+$/.test(labels[labels.length - 1] ?? '');
}

/**
 * Mailbox syntax as a prober can use it (RFC 5321 §4.1.2 with the §4.5.3.1 limits): a dot-atom
 * local part of at most 64 characters, a host-name domain (IDN allowed, measured in its ASCII
 * form) of at most 253, and at most 254 for the whole address.
 *
 * Deliberately rejected, though RFC 5321 allows them: quoted local parts (`"john doe"@x.com`),
 * address literals (`user@[192.0.2.1]`) and non-ASCII local parts (RFC 6531). They are vanishingly
 * rare in lead data, most receiving systems refuse them, and the prober does not speak SMTPUTF8.
 * Surrounding whitespace is not trimmed here: call `normalizeEmail` first.
 */
export function isValidEmailSyntax(email: string): boolean {
  const parts = splitAddress(email);
  if (!parts) return false;
  const { local, domain } = parts;
  if (local.length === 0 || local.length > EMAIL_LIMITS.localPart) return false;
  if (!ASCII_ONLY.test(local) || !DOT_ATOM_LOCAL.test(local)) return false;
  const ascii = toAsciiDomain(domain);
  if (!isValidDomainSyntax(ascii)) return false;
  return local.length + 1 + ascii.length <= EMAIL_LIMITS.address;
}

/** Local part of an address (everything before the last `@`), '' when there is no `@`. */
export function localPartOf(email: string): string {
  return splitAddress(email.trim())?.local ?? '';
}
