import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline, Readable, Transform } from 'node:stream';
import { pipeline as pipelineAsync } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { ApiError } from '../errors.ts';
import { parsingTurn } from './middleware/upload-slot.ts';

export const isMultipart = (type: string | undefined) => type?.toLowerCase().startsWith('multipart/form-data') ?? false;

export interface UploadedFile<F> {
  fileName: string;
  stream: Readable;
  /** The text fields sent before the file (those after it arrive while the file is read). */
  fieldsBefore: Readonly<Record<string, string>>;
  /**
   * Every text field through `parseFields`, once the whole body is read: a field may follow the file. It rejects
   * when the body cannot be read (streamMultipart throws that error) or the parser throws; a consumer that
   * fails before awaiting it leaves no unhandled rejection.
   */
  fields: Promise<F>;
}

interface MultipartOptions<T, F> {
  fileField: string;
  maxFileBytes: number;
  /** Reads every text field once the whole body is read; without it, they are as sent. */
  parseFields?: (fields: Record<string, string>) => F;
  consume: (file: UploadedFile<F>) => Promise<T>;
}

/**
 * Streams a multipart body: text fields are collected, the one file field is handed to `consume` as it
 * arrives (or, when the body may be over the limit, once received whole into a temporary file), in its parsing turn
 * (`parsingTurn`), and is never buffered whole in memory. Over `maxFileBytes` the stream errors with 413; a body without the
 * file field is a 400, and so is one cut short (a truncated body or a client that went away). Answers what
 * `consume` answers.
 */
export async function streamMultipart<T, F = Record<string, string>>(req: Request, opts: MultipartOptions<T, F>): Promise<T> {
  const contentType = req.headers.get('content-type') ?? '';
  if (!isMultipart(contentType)) {
    throw new ApiError('unsupported_media_type', 'Send multipart/form-data with a CSV in the `file` field');
  }
  if (!req.body) throw missingFile(opts.fileField);

  const fields: Record<string, string> = {};
  let consumed: Promise<T> | undefined;
  // A body no larger than the file limit cannot hold a file over it: the file is read as it arrives. One that may
  // (or that does not say its size) is received whole into a temporary file first: a file one byte over the limit
  // then costs the server its bytes, not its parse (csv-parse and the row checks of 10 MB are a second of CPU).
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  const staged = !(declared > 0 && declared <= opts.maxFileBytes);
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { files: 1, fields: 20, fieldSize: 10_000, fileSize: opts.maxFileBytes + 1 },
    });
  } catch {
    throw new ApiError('validation_error', 'Malformed multipart body');
  }

  const finished = new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== opts.fileField || consumed) {
        stream.resume();
        return;
      }
      // Counting here (not busboy's truncation) makes the consumer see an error, so it stores nothing.
      let received = 0;
      const limited = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          received += chunk.length;
          if (received > opts.maxFileBytes) callback(new ApiError('payload_too_large', `The file is over ${opts.maxFileBytes} bytes`));
          else callback(null, chunk);
        },
      });
      // Once the consumer stops (a 413, a bad row), the rest of the upload is drained, never stored; busboy's file
      // stream must stay alive for that, so this is pipe with both error paths handled rather than pipeline.
      const drain = () => {
        stream.unpipe(limited);
        stream.resume();
      };
      limited.on('error', drain);
      // An upload cut short errors the file stream: the consumer sees it, and it is never an unhandled 'error'.
      stream.on('error', (err) => limited.destroy(err));
      stream.pipe(limited);
      const fileName = info.filename ?? 'upload.csv';
      const consume = (file: Readable) => inTurn(req.signal, () => opts.consume({ fileName, stream: file, fieldsBefore: { ...fields }, fields: allFields }));
      consumed = staged ? consumeStaged(limited, consume) : consume(limited);
      consumed.catch(drain);
    });
    parser.on('error', (err: unknown) =>
      reject(
        err instanceof ApiError
          ? err
          : new ApiError('validation_error', 'The upload is not a complete multipart/form-data body', [{ path: 'body', message: String((err as Error).message) }]),
      ),
    );
    parser.on('close', resolve);
  });
  const parseFields = opts.parseFields ?? ((sent) => sent as F);
  const allFields = finished.then(() => parseFields(fields));
  // Its error reaches the caller through `finished` (or the consumer that awaited it), never as an unhandled rejection.
  allFields.catch(() => undefined);

  // Settles once the whole body was read (or the read failed): a caller hashing the body (idempotency) sees all of it.
  const read = new Promise<void>((resolve) => pipeline(Readable.fromWeb(req.body as WebReadableStream<Uint8Array>), parser, () => resolve()));
  await finished.catch(async (err) => {
    if (consumed) await consumed.catch(() => undefined);
    throw err;
  });
  await read;
  if (!consumed) throw missingFile(opts.fileField);
  return consumed;
}

/** `consume` once the upload's parsing turn comes (a file read as it arrives waits unread meanwhile). */
async function inTurn<T>(signal: AbortSignal, consume: () => Promise<T>): Promise<T> {
  const release = await parsingTurn(signal);
  try {
    return await consume();
  } finally {
    release();
  }
}

/** `upload` written whole to a file of its own (only this process may read it), then consumed from there; the file is removed after. */
async function consumeStaged<T>(upload: Readable, consume: (file: Readable) => Promise<T>): Promise<T> {
  const path = join(tmpdir(), `upload-${randomUUID()}.csv`);
  try {
    await pipelineAsync(upload, createWriteStream(path, { flags: 'wx', mode: 0o600 }));
    return await consume(createReadStream(path));
  } finally {
    await rm(path, { force: true });
  }
}

const missingFile = (field: string) =>
  new ApiError('validation_error', `The upload has no \`${field}\` field`, [{ path: `body.${field}`, message: 'Required' }]);
