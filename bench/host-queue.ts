/**
 * `npm run bench -- host-queue`: what it costs to queue a job's addresses at one MX host (HostChannel.ask) when
 * the host holds many of them, as Google Workspace or Microsoft 365 do for a large B2B list: every session waits
 * for a connection slot, so only the queue's own bookkeeping runs. Reported per address for 10,000 and for
 * 100,000 addresses at once; flat means the ratio stays near 1 (a pass over the queue per ask made it ~100).
 */
import { FairSlots } from '../src/smtp/fair-slots.ts';
import { HostChannel } from '../src/smtp/host-channel.ts';

const slots = new FairSlots(1);
const held = await slots.acquire('someone else');

function queueAt(addresses: number): number {
  const channel = new HostChannel(
    'aspmx.l.google.com',
    'google',
    { connections: 5, connectIntervalMs: 100, window: 25, rejectsPerSession: 8 },
    {
      helo: 'bench.local',
      from: 'verify@bench.local',
      port: 25,
      timeoutMs: 10_000,
      maxReconnects: 3,
      batchSize: 100,
      slots,
      resolveHost: () => Promise.resolve({ kind: 'none' }),
      egress: 'direct',
    },
  );
  const started = performance.now();
  for (let i = 0; i < addresses; i += 1) void channel.ask(`user${i}@d${i % 1000}.example`, { owner: 'job' });
  return performance.now() - started;
}

queueAt(10_000); // warm-up
const small = queueAt(10_000) / 10_000;
const large = queueAt(100_000) / 100_000;
console.log(
  `host-queue benchmark: queueing at one host ${(small * 1000).toFixed(2)} µs an address for 10,000, ${(large * 1000).toFixed(2)} µs for 100,000: ${(large / small).toFixed(2)}× per address (flat: ~1)`,
);
held();
process.exit(0);
