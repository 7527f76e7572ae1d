// Just enough CSV reading for a preview of a file before it is uploaded, and its header row renamed to the
// mapping the user chose: the server parses the real thing.

export interface CsvPreview {
  columns: string[];
  rows: string[][];
}

function splitLine(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delimiter) {
      cells.push(cell);
      cell = '';
    } else cell += ch;
  }
  cells.push(cell);
  return cells.map((c) => c.trim());
}

/** The non-empty lines of a CSV text, without a byte-order mark. */
export const csvLines = (text: string) =>
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');

/** A header's delimiter: `;` when it has more of them than of `,` (the service accepts both). */
const delimiterOf = (header: string) => ((header.match(/;/g)?.length ?? 0) > (header.match(/,/g)?.length ?? 0) ? ';' : ',');

/** The header and the first `rows` data lines of a CSV text (`,` or `;`, as the service accepts). */
export function previewCsv(text: string, rows = 5): CsvPreview {
  const lines = csvLines(text);
  const header = lines[0] ?? '';
  const delimiter = delimiterOf(header);
  return {
    columns: splitLine(header, delimiter),
    rows: lines.slice(1, rows + 1).map((line) => splitLine(line, delimiter)),
  };
}

/** Where the header row ends: the first line break outside quotes (a quoted header cell may hold one). */
function headerEnd(text: string): number {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) return i;
  }
  return text.length;
}

/**
 * The file with its header row replaced by `header` (same delimiter), the data rows untouched: how a mapping the
 * user chose by hand reaches the import route, which reads columns by their header names only.
 */
export async function withHeader(file: File, header: string[]): Promise<File> {
  const text = (await file.text()).replace(/^\uFEFF/, '');
  const end = headerEnd(text);
  const old = text.slice(0, end);
  return new File([header.join(delimiterOf(old)), text.slice(end)], file.name, { type: 'text/csv' });
}
