/**
 * The floor of a scenario on the fleet: the fewest round trips any prober needs, and nothing else (names
 * resolved beforehand, no database, no Temporal, no pacing). One session per domain, `concurrency` at a
 * time: the greeting, EHLO, then MAIL FROM, the catch-all probe's RCPT and every address's RCPT pipelined
 * in one transaction, and QUIT; with `starttls`, the session goes through TLS after the first EHLO, as the
 * service's do when a host offers it (the handshake's CPU on both sides, two more round trips). Whatever a
 * prober does on top of that shows as the distance to this time.
 */
import { once } from 'node:events';
import net from 'node:net';
import tls from 'node:tls';
import { ReplyAssembler } from '../../src/domain/smtp-reply.ts';

export interface BareDomain {
  ip: string;
  domain: string;
  addresses: string[];
}

/** A reader of whole replies off `socket`, one promise per reply, in order. */
function replies(socket: net.Socket | tls.TLSSocket): { next: () => Promise<void>; count: (n: number) => Promise<void> } {
  const assembler = new ReplyAssembler();
  let ready = 0;
  let failure: unknown = null;
  const waiters: Array<{ n: number; resolve: () => void; reject: (e: unknown) => void }> = [];
  const settle = () => {
    while (waiters[0] && (failure || ready >= waiters[0].n)) {
      const waiter = waiters.shift()!;
      if (failure) waiter.reject(failure);
      else {
        ready -= waiter.n;
        waiter.resolve();
      }
    }
  };
  const onData = (chunk: string) => {
    try {
      ready += assembler.push(chunk).length;
    } catch (error) {
      failure = error;
    }
    settle();
  };
  socket.setEncoding('utf8');
  socket.on('data', onData);
  socket.on('error', (error) => {
    failure = error;
    settle();
  });
  const count = (n: number) =>
    new Promise<void>((resolve, reject) => {
      waiters.push({ n, resolve, reject });
      settle();
    });
  return { next: () => count(1), count };
}

const clientContext = tls.createSecureContext();

/**
 * One session: the greeting, EHLO, then (with `starttls`) STARTTLS, the handshake and EHLO again, MAIL FROM with
 * the catch-all probe's RCPT and every address's RCPT pipelined in one transaction, and QUIT.
 */
async function session(port: number, { ip, domain, addresses }: BareDomain, starttls: boolean): Promise<void> {
  const raw = net.connect({ host: ip, port });
  raw.setNoDelay(true);
  let socket: net.Socket | tls.TLSSocket = raw;
  try {
    let read = replies(socket);
    const send = (lines: string[]) => socket.write(lines.map((l) => `${l}\r\n`).join(''));
    await read.next();
    send(['EHLO bench.local']);
    await read.next();
    if (starttls) {
      send(['STARTTLS']);
      await read.next();
      raw.removeAllListeners('data');
      const secure = tls.connect({ socket: raw, secureContext: clientContext, rejectUnauthorized: false });
      await once(secure, 'secureConnect');
      socket = secure;
      read = replies(socket);
      send(['EHLO bench.local']);
      await read.next();
    }
    const transaction = ['MAIL FROM:<>', `RCPT TO:<never-${Date.now()}@${domain}>`, ...addresses.map((a) => `RCPT TO:<${a}>`)];
    send(transaction);
    await read.count(transaction.length);
    send(['QUIT']);
    await read.next();
  } finally {
    socket.end();
    if (!raw.closed) await once(raw, 'close');
  }
}

/** Milliseconds for every domain's session, `concurrency` sessions at a time. */
export async function bareSessions(port: number, domains: BareDomain[], concurrency: number, starttls = false): Promise<number> {
  const queue = [...domains];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await session(port, next, starttls);
    }),
  );
  return performance.now() - started;
}
