import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { eventually } from './eventually.ts';
import { freePort } from './worker-process.ts';

/** A real SOCKS5 server (Debian's microsocks) on loopback, for probes that leave through a proxy. */
export interface SocksServer {
  port: number;
  /** `socks5://[user:pass@]127.0.0.1:port`, with the server's own credentials when it has any. */
  url: string;
  /** The address its outgoing connections come from: how a mail host tells proxied sessions apart. */
  bindAddress: string;
  stop(): Promise<void>;
}


function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Starts microsocks on a free port; `bindAddress` (a 127.x address) is where its connections come from. */
export async function startSocksServer(options: {
  bindAddress: string;
  credentials?: { user: string; password: string };
}): Promise<SocksServer> {
  const port = await freePort();
  const auth = options.credentials ? ['-u', options.credentials.user, '-P', options.credentials.password] : [];
  const child: ChildProcess = spawn('microsocks', ['-i', '127.0.0.1', '-p', String(port), '-b', options.bindAddress, ...auth], {
    stdio: 'ignore',
  });
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  child.once('error', () => undefined);
  const up = await eventually(() => !exited && listening(port), (open) => open || exited, {
    what: `microsocks on 127.0.0.1:${port}`,
    timeoutMs: 5_000,
    intervalMs: 25,
  }).catch(() => false);
  if (!up) {
    child.kill();
    throw new Error(`microsocks did not start on 127.0.0.1:${port} (installed? apt-get install microsocks)`);
  }
  const { credentials } = options;
  const userinfo = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
  return {
    port,
    url: `socks5://${userinfo}127.0.0.1:${port}`,
    bindAddress: options.bindAddress,
    async stop() {
      if (!exited) child.kill();
      await exit;
    },
  };
}
