/**
 * `npm run bench -- host-queue`: what a large list costs at one MX host shared by its domains, as Google Workspace
 * or Microsoft 365 hosts are for a B2B list. Two figures, each per address for a small and a 10× larger queue
 * (flat: the ratio stays near 1):
 * - queueing: HostChannel.ask for 10,000 and 100,000 addresses while every session waits for a connection slot,
 *   so only the queue's bookkeeping runs;
 * - probing: the prober over 200 domains at once, all on one PIPELINING host with Google's limits (5 sessions)
 *   answering 1 ms after each command, 20,000 and 200,000 addresses; the host runs in this process, so CPU time
 *   per address is the measure (wall time shown beside it).
 */
import { FairSlots } from '../src/smtp/fair-slots.ts';
import { HostChannel } from '../src/smtp/host-channel.ts';
import { startMailWorld } from '../test/support/mail-world/index.ts';
import { testProber } from '../test/support/mail-world/prober.ts';

const HOST = 'aspmx.l.google.com';

async function queueing(addresses: number): Promise<number> {
  const slots = new FairSlots(1);
  const held = await slots.acquire('someone else');
  const channel = new HostChannel(
    HOST,
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
  const perAddress = (performance.now() - started) / addresses;
  held();
  return perAddress;
}

async function probing(perDomain: number): Promise<{ cpuUs: number; wallS: number }> {
  const domains = Array.from({ length: 200 }, (_, i) => `d${i}.bench`);
  const behaviour = {
    mailboxes: domains.flatMap((d) => Array.from({ length: perDomain / 2 }, (_, k) => `user${k}@${d}`)),
    latencyMs: 1,
    roundTripBound: true,
  };
  const mx = { host: HOST, preference: 10, ip: '127.0.9.1', behaviour };
  const world = await startMailWorld({ domains: Object.fromEntries(domains.map((d) => [d, { mx: [mx] }])) });
  try {
    // The host shares this process's CPU: its replies may lag past the tests' 2 s reply timeout.
    const prober = testProber(world, { timeoutMs: 30_000 });
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      domains.map((d) =>
        prober.probeDomain(d, Array.from({ length: perDomain }, (_, k) => (k % 2 ? `nobody${k}@${d}` : `user${k / 2}@${d}`)), { owner: 'job' }),
      ),
    );
    const wallS = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return { cpuUs: (used.user + used.system) / (domains.length * perDomain), wallS };
  } finally {
    await world.stop();
  }
}

await queueing(10_000); // warm-up
const [small, large] = [await queueing(10_000), await queueing(100_000)];
console.log(
  `host-queue benchmark (${new Date().toISOString()})\n  queueing at one host: ${(small * 1000).toFixed(2)} µs an address for 10,000, ${(large * 1000).toFixed(2)} µs for 100,000: ${(large / small).toFixed(2)}× per address (flat: ~1)`,
);
await probing(20); // warm-up
const few = await probing(100);
const many = await probing(1_000);
console.log(
  `  probing 200 domains on one host: 20,000 addresses ${few.cpuUs.toFixed(1)} µs CPU an address (${few.wallS.toFixed(1)} s), 200,000 addresses ${many.cpuUs.toFixed(1)} µs (${many.wallS.toFixed(1)} s): ${(many.cpuUs / few.cpuUs).toFixed(2)}× per address (flat: ~1)`,
);
process.exit(0);
