/** A cell a spreadsheet would run as a formula starts like this (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;
/**
 * A sign followed by a phone number (`+1 415 555 0100`, `+44 (20) 7946-0958`): digits, spaces, dots, hyphens and
 * parentheses only. A spreadsheet can at most do arithmetic with it, never call anything, and a `'` in front
 * breaks the phone for every CRM the file is imported into (CONTRACT §15).
 */
const SIGNED_PHONE = /^[+-][0-9 ().-]*[0-9][0-9 ().-]*$/;

/** Prefixes a would-be formula with `'` so spreadsheets show it as text; phone numbers stay as they are. */
export const defuseFormula = (value: string) => (FORMULA_START.test(value) && !SIGNED_PHONE.test(value) ? `'${value}` : value);

/** One RFC 4180 line: cells with a separator, quote or line break are quoted, quotes doubled. */
export function csvLine(cells: ReadonlyArray<string | null | undefined>): string {
  return (
    cells
      .map((cell) => {
        const text = defuseFormula(cell ?? '');
        return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
      })
      .join(',') + '\r\n'
  );
}

/** `attachment` with an ASCII fallback name and the exact name in RFC 5987 form. */
export function attachmentDisposition(baseName: string, extension: string): string {
  const ascii = baseName.replace(/[^A-Za-z0-9._ -]+/g, '_').replace(/^[.\s_-]+|[.\s]+$/g, '').slice(0, 100) || 'download';
  const exact = encodeURIComponent(`${baseName.slice(0, 100)}.${extension}`).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}.${extension}"; filename*=UTF-8''${exact}`;
}
