import { normalizePhone, type CountryCode } from './phone.ts';

const DIGITS_AND_SEPARATORS = /^[\d\s()./-]+$/;

/**
 * The form in which a caller's number is stored on a lead, whatever way the caller wrote it: E.164 when it
 * parses (with `country` reading national numbers), else as given (leads keep unparseable phones as given).
 * Digits without `+` and without a country are read as an international number, the way telephony systems
 * hand over caller IDs: E.164 without its plus (`14155552671`) or after the `00` exit code (`0044 20 ...`).
 * A leading single `0` is a national trunk prefix and never a country code, so it is not guessed at.
 */
export function phoneForLookup(raw: string, country?: CountryCode): string {
  const given = raw.trim();
  const parsed = normalizePhone(given, country);
  if (parsed) return parsed;
  if (DIGITS_AND_SEPARATORS.test(given)) {
    const digits = given.replace(/\D/g, '');
    const international = digits.startsWith('00') ? digits.slice(2) : digits.startsWith('0') ? null : digits;
    const guessed = international ? normalizePhone(`+${international}`) : null;
    if (guessed) return guessed;
  }
  return given;
}
