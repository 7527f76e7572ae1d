import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';

export type { CountryCode };

/**
 * A phone number in E.164 (`+14155552671`), or null when it cannot be parsed or is not a valid
 * number (full metadata: lengths and number ranges are checked, not only the digit count).
 * Without a leading `+`, `defaultCountry` decides how the national number is read.
 */
export function normalizePhone(raw: string, defaultCountry?: CountryCode): string | null {
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed.length > 64) return null;
  const parsed = parsePhoneNumberFromString(trimmed, defaultCountry);
  if (!parsed?.isValid()) return null;
  return parsed.number;
}
