import { Readable, Transform } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import { ApiError } from './errors.ts';

export interface UploadedFile {
  fileName: string;
  stream: Readable;
}

/**
 * Streams a multipart body: text fields are collected, the one file field is handed to `consume` as it
 * arrives and is never buffered whole. Over `maxFileBytes` the stream errors with 413.
 */
export async function streamMultipart<T>(
  req: Request,
  opts: { fileField: string; maxFileBytes: number; consume: (file: UploadedFile) => Promise<T> },
): Promise<{ fields: Record<string, string>; result: T | undefined }> {
  const contentType = req.headers.get('content-type') ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    throw new ApiError('unsupported_media_type', 'Send multipart/form-data with a CSV in the `file` field');
  }
  if (!req.body) throw new ApiError('unprocessable', 'The upload is empty', { reason: 'no_file' });

  const fields: Record<string, string> = {};
  let consumed: Promise<T> | undefined;
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
      // Once the consumer stops, the rest of the upload is drained, never stored.
      const drain = () => {
        stream.unpipe(limited);
        stream.resume();
      };
      limited.on('error', drain);
      stream.pipe(limited);
      consumed = opts.consume({ fileName: info.filename ?? 'upload.csv', stream: limited });
      consumed.catch(drain);
    });
    parser.on('error', () => reject(new ApiError('validation_error', 'Malformed multipart body')));
    parser.on('close', resolve);
  });

  const body = Readable.fromWeb(req.body as WebReadableStream<Uint8Array>);
  body.on('error', (err) => parser.destroy(err));
  body.pipe(parser);
  await finished.catch(async (err) => {
    if (consumed) await consumed.catch(() => undefined);
    throw err;
  });
  return { fields, result: consumed ? await consumed : undefined };
}
