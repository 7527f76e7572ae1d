import { isValidEmailSyntax, normalizeEmail } from './email.ts';
import { BOUNCE_TYPES, type BounceType, SEND_OUTCOMES, type SendOutcomeKind } from './outcomes.ts';

/** One reported send, as stored: the address as verification results hold it (trimmed, lower-cased). */
export interface OutcomeRecord {
  email: string;
  outcome: SendOutcomeKind;
  bounceType: BounceType | null;
  at: Date;
}

export interface OutcomeFields {
  email: string;
  outcome: string;
  bounceType?: string | null;
  at?: string | null;
}

/** Clocks of the reporting systems drift; an `at` further ahead than this is refused (it would pin the address). */
const FUTURE_ALLOWANCE_MS = 5 * 60_000;
// ISO 8601 date-time with an offset or Z, as JSON timestamps are written; a bare date is midnight UTC.
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

const isOneOf = <T extends string>(values: readonly T[], value: string): value is T => (values as readonly string[]).includes(value);

/**
 * Checks one reported outcome and puts it in stored form, or says in plain words what is wrong with it.
 * A `bounceType` belongs to a bounce only; a bounce without one is stored without a type (not counted as hard).
 */
export function checkOutcome(fields: OutcomeFields, now: Date): { record: OutcomeRecord } | { reason: string } {
  const email = normalizeEmail(fields.email).toLowerCase();
  if (email === '') return { reason: 'the email is missing' };
  if (!isValidEmailSyntax(email)) return { reason: `"${fields.email.trim()}" is not a valid email address` };
  const outcome = fields.outcome.trim().toLowerCase();
  if (outcome === '') return { reason: 'the outcome is missing' };
  if (!isOneOf(SEND_OUTCOMES, outcome)) return { reason: `the outcome must be "delivered" or "bounced", not "${fields.outcome.trim()}"` };
  const bounce = (fields.bounceType ?? '').trim().toLowerCase();
  let bounceType: BounceType | null = null;
  if (bounce !== '') {
    if (!isOneOf(BOUNCE_TYPES, bounce)) return { reason: `the bounce type must be "hard" or "soft", not "${fields.bounceType?.trim()}"` };
    if (outcome !== 'bounced') return { reason: 'a bounce type is only given for a bounced outcome' };
    bounceType = bounce;
  }
  const text = (fields.at ?? '').trim();
  let at = now;
  if (text !== '') {
    at = new Date(text);
    if (!ISO_TIMESTAMP.test(text) || Number.isNaN(at.getTime())) return { reason: `"${text}" is not an ISO 8601 timestamp (e.g. 2026-11-20T12:00:00Z)` };
    if (at.getTime() > now.getTime() + FUTURE_ALLOWANCE_MS) return { reason: 'the time is in the future' };
  }
  return { record: { email, outcome, bounceType, at } };
}

/**
 * One record per address: the latest by `at` (of equal times, the one reported last), as storing them
 * one after the other would leave it; the database upsert can touch each address once per statement.
 */
export function latestPerAddress(records: OutcomeRecord[]): OutcomeRecord[] {
  const latest = new Map<string, OutcomeRecord>();
  for (const r of records) {
    const seen = latest.get(r.email);
    if (!seen || seen.at.getTime() <= r.at.getTime()) latest.set(r.email, r);
  }
  return [...latest.values()];
}
