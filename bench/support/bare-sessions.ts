/**
 * The floor of a scenario on the fleet: the fewest round trips any prober needs, and nothing else (names
 * resolved beforehand, no database, no Temporal, no pacing). One session per domain, `concurrency` at a
 * time: the greeting, EHLO, then MAIL FROM, the catch-all probe's RCPT and every address's RCPT pipelined
 * in one transaction, and QUIT. Whatever a prober does on top of that shows as the distance to this time.
 */
import { once } from 'node:events';
import net from 'node:net';
import { ReplyAssembler } from '../../src/domain/smtp-reply.ts';

export interface BareDomain {
  ip: string;
  domain: string;
  addresses: string[];
}

/** One session; each step waits for that many replies, then sends its lines. */
async function session(port: number, { ip, domain, addresses }: BareDomain): Promise<void> {
  const socket = net.connect({ host: ip, port });
  socket.setNoDelay(true);
  socket.setEncoding('utf8');
  const transaction = ['MAIL FROM:<>', `RCPT TO:<never-${Date.now()}@${domain}>`, ...addresses.map((a) => `RCPT TO:<${a}>`)];
  const steps: Array<[replies: number, send: string[]]> = [
    [1, ['EHLO bench.local']],
    [1, transaction],
    [transaction.length, ['QUIT']],
    [1, []],
  ];
  const assembler = new ReplyAssembler();
  let replies = 0;
  let step = 0;
  const done = new Promise<void>((resolve, reject) => {
    socket.on('data', (chunk: string) => {
      let completed;
      try {
        completed = assembler.push(chunk);
      } catch (error) {
        return reject(error);
      }
      for (const _ of completed) {
        if (++replies < steps[step]![0]) continue;
        replies = 0;
        const [, send] = steps[step++]!;
        if (step === steps.length) return resolve();
        socket.write(send.map((l) => `${l}\r\n`).join(''));
      }
    });
    socket.on('error', reject);
  });
  try {
    await done;
  } finally {
    socket.end();
    if (!socket.closed) await once(socket, 'close');
  }
}

/** Milliseconds for every domain's session, `concurrency` sessions at a time. */
export async function bareSessions(port: number, domains: BareDomain[], concurrency: number): Promise<number> {
  const queue = [...domains];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await session(port, next);
    }),
  );
  return performance.now() - started;
}
