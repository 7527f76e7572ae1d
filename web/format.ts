// Numbers, money, percentages, dates and phones as the user's browser locale writes them, and the service's tokens
// (methods, stages, decisions) in words. Every screen formats through here, so no raw token or "58.95 %" shows.
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import type { Decision, VerificationMethod, VerificationStage } from '../src/domain/verification.ts';

const integer = new Intl.NumberFormat();
const percentFormat = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 2 });
// Provider prices are fractions of a cent ($0.0005): as many decimals as the amount has, up to the micro-dollar.
const dollars = new Intl.NumberFormat(undefined, {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
const timeFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

export const num = (n: number) => integer.format(n);
/** A percentage the service computed (0–100, 2 decimals) in the locale's way ("58.95%", "58,95 %"). */
export const percent = (value: number) => percentFormat.format(value / 100);
/** The share `part / whole` as a locale percentage; 0 % of nothing. */
export const share = (part: number, whole: number) => percent(whole > 0 ? (part / whole) * 100 : 0);
export const money = (amount: number) => dollars.format(amount);
export const when = (iso: string | null) => (iso ? dateTime.format(new Date(iso)) : '—');
export const clock = (date: Date) => timeFormat.format(date);
/** "2026-11" → "November 2026". */
export const monthName = (month: string) => monthFormat.format(new Date(`${month}-01T00:00:00Z`));

/** "1 row", "1,000 credits": the screens count things in sentences, the number in the locale's digits. */
export const counted = (n: number, one: string, many = `${one}s`) => `${num(n)} ${n === 1 ? one : many}`;
export const credits = (n: number) => counted(n, 'credit');

/** A token the service sends ("not_found", "smtp_verifying") as a phrase: spaces, first letter capital. */
export const words = (token: string) => {
  const text = token.replaceAll('_', ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
};

/** The region of the browser's language ("en-GB" → "GB"), so a phone of that country is written nationally. */
const REGION = new Intl.Locale(navigator.language).maximize().region;

/** A phone as the locale writes it: national form for the user's own country, international otherwise. */
export function phone(value: string | null): string {
  if (!value) return '—';
  const parsed = parsePhoneNumberFromString(value);
  if (!parsed?.isValid()) return value;
  return parsed.country === REGION ? parsed.formatNational() : parsed.formatInternational();
}

export const METHOD_LABEL: Record<VerificationMethod, string> = {
  smtp_only: 'Mail server check (free)',
  smtp_api_fallback: 'Mail server check, then the provider for the gaps',
  api_only: 'Provider only (paid)',
};

export const STAGE_LABEL: Record<VerificationStage, string> = {
  pending: 'Waiting to start',
  smtp_verifying: 'Checking mail servers',
  awaiting_decision: 'Waiting for your decision',
  api_verifying: 'Verifying with the provider',
  completed: 'Completed',
  failed: 'Failed',
};

export const DECISION_LABEL: Record<Decision, string> = {
  accept_current: 'keep the free result',
  fill_unknowns_only: 'pay the provider for the unknown addresses',
  fill_catchall_only: 'pay the provider for the catch-all addresses',
  fill_all_gaps: 'pay the provider for every gap',
};

/** Who gave a result its verdict. */
export const SOURCE_LABEL: Record<string, string> = {
  precheck: 'free pre-check',
  smtp: 'mail server',
  directory: 'Microsoft directory',
  api: 'verification provider',
};
