import type { Socket } from 'node:net';

/**
 * The TCP sockets one session attempt opened (each address of the host it tried). A mail host counts a
 * connection until its socket is closed (CONTRACT §11), so the attempt's slot is given back only after
 * every one of them emitted 'close': a slot freed at QUIT, or while a destroyed socket is still closing,
 * lets the next session connect while the host still counts this one.
 */
export class OpenSockets {
  readonly #sockets = new Set<Socket>();
  readonly #closed: Promise<void>[] = [];

  track(socket: Socket): void {
    this.#sockets.add(socket);
    this.#closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
  }

  /** Destroys what is still open (nothing, when the session ended as it should) and waits for every close. */
  async closeAll(): Promise<void> {
    for (const socket of this.#sockets) if (!socket.destroyed) socket.destroy();
    await Promise.all(this.#closed);
  }
}
