/**
 * What the machine's processors did over a stretch of a benchmark, from /proc: the busy time of all of them (every
 * process: the service, PostgreSQL, the fleet, Temporal), and who used it. Busy time over the processor count is a
 * floor for the stretch's length that no scheduling beats: a job whose run is near it waited for CPU, not for
 * round trips.
 */
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';

const TICKS_PER_SECOND = 100;

interface Sample {
  busyTicks: number;
  /** Every process's name and ticks so far, by pid: a process's use is the difference of its own two samples. */
  byPid: Map<number, { name: string; ticks: number }>;
}

/** A process's command name and the CPU ticks (user + system) it has used, from /proc/<pid>/stat; null once it is gone. */
async function processStat(pid: number): Promise<{ name: string; ticks: number } | null> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (!stat) return null;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime: fields 14 and 15 of the whole line, 12 and 13 after the command.
  return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ticks: Number(fields[11]) + Number(fields[12]) };
}

/**
 * CPU seconds (user + system) a process has used: unlike answer times, it does not depend on what else runs on the
 * machine, so runs on a loaded machine stay comparable.
 */
export async function cpuSeconds(pid: number): Promise<number> {
  return ((await processStat(pid))?.ticks ?? 0) / TICKS_PER_SECOND;
}

async function processTicks(labels: ReadonlyMap<number, string>): Promise<Map<number, { name: string; ticks: number }>> {
  const byPid = new Map<number, { name: string; ticks: number }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const stat = await processStat(pid);
    if (!stat) continue;
    // Node names every process MainThread: the benchmark's own are told apart by pid. A kernel worker's name
    // carries the work it is doing now (kworker/u8:0-writeback), which changes from one sample to the next.
    byPid.set(pid, { name: labels.get(pid) ?? stat.name.replace(/^(kworker\/[^-+]+)[-+].*$/, '$1'), ticks: stat.ticks });
  }
  return byPid;
}

export async function cpuSample(labels: ReadonlyMap<number, string> = new Map()): Promise<Sample> {
  const [line] = (await readFile('/proc/stat', 'utf8')).split('\n');
  const ticks = line!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
  const busyTicks = ticks.slice(0, 8).reduce((a, b) => a + b, 0) - ticks[3]! - ticks[4]!;
  return { busyTicks, byPid: await processTicks(labels) };
}

/** One line: the busy processors' seconds, the floor they make over the machine's cores, and the main users. */
export function cpuLine(before: Sample, after: Sample, wallMs: number): string {
  const cores = os.availableParallelism();
  const busy = (after.busyTicks - before.busyTicks) / TICKS_PER_SECOND;
  // A process that started in between counts from zero; one that ended in between is not seen (its use is in busy).
  const byName = new Map<string, number>();
  for (const [pid, { name, ticks }] of after.byPid) byName.set(name, (byName.get(name) ?? 0) + ticks - (before.byPid.get(pid)?.ticks ?? 0));
  const users = [...byName]
    .map(([name, ticks]) => [name, ticks / TICKS_PER_SECOND] as const)
    .filter(([, seconds]) => seconds >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([name, seconds]) => `${name} ${seconds.toFixed(2)}`);
  return `processors busy ${busy.toFixed(2)} s of ${((wallMs / 1000) * cores).toFixed(2)} (${cores} cores): a floor of ${(busy / cores).toFixed(2)} s for this work on this machine (${users.join(', ')} s)`;
}
