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

  /** Connections frozen by `freeze()`, or accepted while frozen: they stay silent until the proxy goes down. */
  private readonly frozen = new Set<Socket>();
  private silent = false;

  /**
   * Stops forwarding without closing anything, as a stuck proxy or a frozen network path does: connections are
   * still accepted, and nothing sent on any connection, open or new, is ever answered.
   */
  freeze(): void {
    this.silent = true;
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
      this.frozen.add(socket);
    }
  }

  /** New connections are forwarded again; the frozen ones stay silent (their path is lost for good). */
  thaw(): void {
    this.silent = false;
  }

  async up(): Promise<void> {
    const server = createServer((client) => {
      if (this.silent) {
        this.frozen.add(client);
        client.on('close', () => this.frozen.delete(client));
        client.on('error', () => undefined);
        client.pause();
        return;
      }
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
    for (const socket of [...this.sockets, ...this.frozen]) socket.destroy();
    this.frozen.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
