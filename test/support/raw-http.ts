import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A multipart/form-data body with one file field (and optional text fields), as raw bytes. */
export function multipartBody(file: string | Buffer, fields: Record<string, string> = {}, boundary = 'xBoundary7MA4YWxk') {
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const head = Buffer.from(`${parts.join('')}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.csv"\r\nContent-Type: text/csv\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return { body: Buffer.concat([head, Buffer.isBuffer(file) ? file : Buffer.from(file), tail]), contentType: `multipart/form-data; boundary=${boundary}`, tail };
}

/** The bytes of an HTTP/1.1 request, exactly as given (a Content-Length is added for a body). */
export function requestBytes(method: string, path: string, headers: Record<string, string>, body?: Buffer): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body) lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body ?? Buffer.alloc(0)]);
}

/**
 * Sends `bytes` over a fresh connection. With `abortAfter`, only that many bytes go out and the client then
 * resets the connection `abortDelayMs` later, as a browser tab closed mid-upload does; the answer is then null.
 */
export function sendRaw(baseUrl: string, bytes: Buffer, abortAfter?: number, abortDelayMs = 0): Promise<RawResponse | null> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (err) => (abortAfter === undefined ? reject(err) : resolve(null)));
    socket.on('close', () => resolve(abortAfter === undefined ? parse(Buffer.concat(chunks)) : null));
    socket.on('connect', () => {
      if (abortAfter === undefined) {
        socket.write(bytes);
        return;
      }
      socket.write(bytes.subarray(0, abortAfter), () => setTimeout(() => socket.resetAndDestroy(), abortDelayMs));
    });
  });
}

function parse(raw: Buffer): RawResponse {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  let body = text.slice(split + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!size) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
