import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../errors.ts';
import { errorBody, statusOf } from './errors.ts';

/** Longest request line answered as 414 rather than 431 when Node's header limit (16 KiB) is hit. */
const REQUEST_LINE_LIMIT = 8 * 1024;

/**
 * Serves `fetch` over HTTP. Requests that Node refuses before any handler runs (a request line or headers
 * over its limit, a malformed request) still get the contract's error body instead of a reset connection.
 */
export function listen(fetch: (req: Request) => Response | Promise<Response>, options: { port: number; hostname?: string }, onListening?: (info: AddressInfo) => void): Server {
  const server = serve({ fetch, ...options }, onListening) as Server;
  server.on('clientError', answerClientError);
  return server;
}

type ParserError = Error & { code?: string; rawPacket?: Buffer };

function answerClientError(err: ParserError, socket: Duplex) {
  // A client that went away, or one too slow to send its request, is not waiting for an answer.
  if (err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || !socket.writable) {
    socket.destroy();
    return;
  }
  const error = classify(err);
  const body = JSON.stringify(errorBody(error));
  socket.end(
    `HTTP/1.1 ${statusOf(error)} ${STATUS_TEXT[statusOf(error)] ?? 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function classify(err: ParserError): ApiError {
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    const raw = err.rawPacket ?? Buffer.alloc(0);
    const lineEnd = raw.indexOf('\r\n');
    if (lineEnd === -1 || lineEnd > REQUEST_LINE_LIMIT) return new ApiError('uri_too_long', `The request line is over ${REQUEST_LINE_LIMIT} bytes`);
    return new ApiError('headers_too_large', 'The request headers are over the server limit');
  }
  return new ApiError('validation_error', 'Malformed HTTP request');
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };
