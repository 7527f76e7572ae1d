import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PageServer {
  /** `http://127.0.0.1:<port>`: what the browser sends as `Origin` from this page. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Serves one HTML page at `/` on a loopback port of its own, so a browser loading it has an origin distinct
 * from the app's (same host, other port: the session cookie, SameSite=Lax, still travels; CORS decides).
 */
export async function servePage(html: string): Promise<PageServer> {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://x').pathname === '/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(html);
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
