// Just enough CSV reading for a preview of a file before it is uploaded: the server parses the real thing.

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

/** The header and the first `rows` data lines of a CSV text (`,` or `;`, as the service accepts). */
export function previewCsv(text: string, rows = 5): CsvPreview {
  const lines = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
  const header = lines[0] ?? '';
  const delimiter = (header.match(/;/g)?.length ?? 0) > (header.match(/,/g)?.length ?? 0) ? ';' : ',';
  return {
    columns: splitLine(header, delimiter),
    rows: lines.slice(1, rows + 1).map((line) => splitLine(line, delimiter)),
  };
}

const escapeCell = (value: unknown) => {
  let text = value === null || value === undefined ? '' : String(value);
  // Spreadsheets run cells that start like a formula; the service's own downloads guard the same way.
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

export function toCsv(columns: string[], rows: Array<Record<string, unknown>>): string {
  return (
    [
      columns.join(','),
      ...rows.map((row) => columns.map((column) => escapeCell(row[column])).join(',')),
    ].join('\r\n') + '\r\n'
  );
}

/** Hands a text to the browser as a downloaded file. */
export function saveFile(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
