import { isUtf8 } from 'node:buffer';
import { pipeline, Readable, Transform, type TransformCallback } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { ApiError } from '../errors.ts';

/** Why an upload is not a usable CSV; the importers answer 415 for `binary`, 422 for the rest. */
export type CsvProblem =
  | 'binary'
  | 'empty'
  | 'invalid_encoding'
  | 'nul_character'
  | 'unclosed_quote'
  | 'invalid_closing_quote'
  | 'record_too_large'
  | 'too_many_columns'
  | 'malformed_csv';

export class CsvFormatError extends Error {
  readonly kind: CsvProblem;
  /** 1-based physical line of the file where the problem is, when known. */
  readonly line: number | undefined;
  constructor(kind: CsvProblem, message: string, line?: number) {
    super(line === undefined ? message : `${message} (line ${line})`);
    this.kind = kind;
    this.line = line;
  }
}

const HEAD_BYTES = 64 * 1024;
/** A record (row) longer than this is not lead or company data; it would only hold memory. */
export const MAX_RECORD_BYTES = 1024 * 1024;
export const MAX_COLUMNS = 1000;

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

const CSV_PARSE_PROBLEMS: Record<string, { kind: CsvProblem; message: string }> = {
  CSV_QUOTE_NOT_CLOSED: { kind: 'unclosed_quote', message: 'A quoted field is never closed' },
  CSV_INVALID_CLOSING_QUOTE: { kind: 'invalid_closing_quote', message: 'A character follows a closing quote' },
  CSV_MAX_RECORD_SIZE: { kind: 'record_too_large', message: `A row is over ${MAX_RECORD_BYTES} characters` },
};

function fromCsvParse(err: CsvError): CsvFormatError {
  const known = CSV_PARSE_PROBLEMS[err.code];
  const line = (err as { lines?: number }).lines;
  return known ? new CsvFormatError(known.kind, known.message, line) : new CsvFormatError('malformed_csv', 'The file is not valid CSV', line);
}

/**
 * Passes the bytes through unchanged while checking, a line at a time, that they are UTF-8 without NUL
 * (PostgreSQL stores neither invalid UTF-8 nor NUL): a bad file is refused naming its line, never stored
 * with replacement characters.
 */
function textGuard(): Transform {
  let pending: Buffer = Buffer.alloc(0);
  let line = 1;
  const check = (bytes: Buffer): CsvFormatError | undefined => {
    if (isUtf8(bytes) && !bytes.includes(0)) {
      line += countNewlines(bytes);
      return undefined;
    }
    for (let start = 0; start < bytes.length; line++) {
      const end = bytes.indexOf(0x0a, start);
      const text = bytes.subarray(start, end === -1 ? bytes.length : end);
      if (text.includes(0)) return new CsvFormatError('nul_character', 'The file holds a NUL character', line);
      if (!isUtf8(text)) return new CsvFormatError('invalid_encoding', 'The file is not UTF-8 text; save it as "CSV UTF-8"', line);
      if (end === -1) break;
      start = end + 1;
    }
    return undefined;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      const bytes = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      // A line break never falls inside a multi-byte UTF-8 sequence, so complete lines can be checked alone.
      const cut = bytes.lastIndexOf(0x0a) + 1;
      pending = bytes.subarray(cut);
      if (pending.length > MAX_RECORD_BYTES) {
        callback(new CsvFormatError('record_too_large', `A row is over ${MAX_RECORD_BYTES} characters`, line));
        return;
      }
      callback(check(bytes.subarray(0, cut)), chunk);
    },
    flush(callback: TransformCallback) {
      callback(check(pending));
    },
  });
}

function countNewlines(bytes: Buffer): number {
  let count = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) count++;
  return count;
}

/**
 * Streams CSV records (arrays of trimmed cells) from an upload: UTF-8 with or without BOM, `,` or `;`,
 * quoted fields with newlines, ragged rows. Memory stays bounded by one chunk plus one record. Every
 * problem of the file itself, wherever it is, surfaces as a `CsvFormatError`; an error of the source
 * (an aborted upload, a size limit) surfaces as itself.
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
  const parser = parse({
    bom: true,
    delimiter: detectDelimiter(firstLine),
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  // pipeline (not pipe) so that an error anywhere destroys every stage and reaches the loop below.
  pipeline(Readable.from(rest()), textGuard(), parser, () => undefined);
  let row = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      row++;
      if (record.length > MAX_COLUMNS) {
        throw new CsvFormatError('too_many_columns', `Row ${row} has ${record.length} columns (at most ${MAX_COLUMNS})`);
      }
      if (record.every((cell) => cell === '')) continue;
      yield record;
    }
  } catch (err) {
    throw err instanceof CsvError ? fromCsvParse(err) : err;
  } finally {
    parser.destroy();
  }
}

/** The user's file is at fault: 415 for a binary file, else 422 naming the problem and its line. */
export function uploadError(err: unknown): unknown {
  if (!(err instanceof CsvFormatError)) return err;
  const details = { reason: err.kind, ...(err.line === undefined ? {} : { line: err.line }) };
  return new ApiError(err.kind === 'binary' ? 'unsupported_media_type' : 'unprocessable', err.message, details);
}
