/** A cell a spreadsheet would run as a formula starts like this (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Prefixes a would-be formula with `'` so spreadsheets show it as text. */
export const defuseFormula = (value: string) => (FORMULA_START.test(value) ? `'${value}` : value);

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
