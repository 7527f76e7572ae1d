import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP forwarder in front of PostgreSQL or Temporal, so a test can take the dependency "down" (connections
 * refused, open ones cut, as when the server stops) and bring it back on the same address.
 */
export class TcpProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  private readonly target: { host: string; port: number };

  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  get address() {
    return `127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(a);
        a.on('close', () => this.sockets.delete(a));
        a.on('error', () => b.destroy());
        a.pipe(b);
      }
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
