import type { Readable } from 'node:stream';
import { Readable as NodeReadable } from 'node:stream';
import { parse } from 'csv-parse';

export class CsvFormatError extends Error {
  readonly kind: 'binary' | 'empty';
  constructor(kind: 'binary' | 'empty', message: string) {
    super(message);
    this.kind = kind;
  }
}

const HEAD_BYTES = 64 * 1024;

/** The header line's most frequent separator outside quotes; spreadsheets in many locales write `;`. */
export function detectDelimiter(headerLine: string): ',' | ';' {
  let inQuotes = false;
  let commas = 0;
  let semicolons = 0;
  for (const ch of headerLine) {
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && ch === ',') commas++;
    else if (!inQuotes && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/**
 * Streams CSV records (arrays of trimmed cells) from an upload: UTF-8 with or without BOM, `,` or `;`,
 * quoted fields with newlines, ragged rows. Memory stays bounded by one chunk plus one record.
 */
export async function* readCsvRecords(source: Readable | AsyncIterable<Buffer>): AsyncGenerator<string[]> {
  const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  let done = false;
  while (!done && head.length < HEAD_BYTES && !head.includes(0x0a)) {
    const next = await chunks.next();
    if (next.done) done = true;
    else head = Buffer.concat([head, Buffer.from(next.value)]);
  }
  if (head.includes(0x00)) throw new CsvFormatError('binary', 'The file is not a text CSV file');
  if (head.length === 0) throw new CsvFormatError('empty', 'The file is empty');
  const text = head.toString('utf8').replace(/^\uFEFF/, '');
  const firstLine = text.split(/\r?\n/, 1)[0] ?? '';

  const rest = async function* () {
    yield head;
    if (done) return;
    for (;;) {
      const next = await chunks.next();
      if (next.done) return;
      yield Buffer.from(next.value);
    }
  };
  const parser = NodeReadable.from(rest()).pipe(
    parse({
      bom: true,
      delimiter: detectDelimiter(firstLine),
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    }),
  );
  for await (const record of parser as AsyncIterable<string[]>) {
    if (record.every((cell) => cell === '')) continue;
    yield record;
  }
}
