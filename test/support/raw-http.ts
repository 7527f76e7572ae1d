import { connect, type Socket } from 'node:net';

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
export function requestBytes(method: string, path: string, headers: Record<string, string>, body?: Buffer, connection: 'close' | 'keep-alive' = 'close'): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Connection: ${connection}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
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

/**
 * One keep-alive connection, used as an HTTP/1.1 client's pool uses it: every request goes out on the same socket
 * unless the answer before said `Connection: close`, which opens a new one. An answer is read by its
 * Content-Length; a request whose socket closes before its answer is complete gets null (no answer).
 */
export function keepAliveClient(baseUrl: string) {
  const { hostname, port } = new URL(baseUrl);
  let socket: Socket | undefined;
  let mustReconnect = true;
  return {
    /** How many sockets the client has opened so far. */
    connections: 0,
    request(bytes: Buffer): Promise<RawResponse | null> {
      if (mustReconnect || !socket || socket.destroyed) {
        socket?.destroy();
        socket = connect(Number(port), hostname);
        this.connections += 1;
      }
      const current = socket;
      return new Promise((resolve) => {
        let received = Buffer.alloc(0);
        const done = (answer: RawResponse | null) => {
          current.off('data', onData);
          current.off('close', onClose);
          mustReconnect = answer === null || answer.headers.connection?.toLowerCase() === 'close';
          resolve(answer);
        };
        const onData = (chunk: Buffer) => {
          received = Buffer.concat([received, chunk]);
          const split = received.indexOf('\r\n\r\n');
          if (split === -1) return;
          const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(received.subarray(0, split).toString('latin1'))?.[1] ?? 0);
          if (received.length >= split + 4 + length) done(parse(received.subarray(0, split + 4 + length)));
        };
        const onClose = () => done(null);
        current.on('data', onData);
        current.on('close', onClose);
        current.on('error', () => current.destroy());
        current.write(bytes);
      });
    },
    close: () => socket?.destroy(),
  };
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
