import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listen } from '../../src/http/server.ts';
import type { Harness } from './harness.ts';

export interface ServedApp {
  /** `http://127.0.0.1:<port>`, the app's origin. */
  url: string;
  close(): Promise<void>;
}

/** The harness's app over real HTTP on a loopback port (as `npm start` serves it), for clients that are not `app.request()`. */
export async function serveApp(h: Harness): Promise<ServedApp> {
  let server: Server | undefined;
  const { port } = await new Promise<AddressInfo>((resolve, reject) => {
    server = listen(h.app.fetch, { port: 0, hostname: '127.0.0.1' }, resolve);
    server.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server!.closeAllConnections();
        server!.close(() => resolve());
      }),
  };
}
