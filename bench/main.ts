/**
 * `npm run bench -- <name>`: runs bench/<name>.ts, a self-contained measurement against local stand-ins.
 * Results are printed as ratios or against stated limits, never asserted as timings in tests.
 */
import { readdir } from 'node:fs/promises';

const available = (await readdir(import.meta.dirname)).filter((f) => f.endsWith('.ts') && f !== 'main.ts').map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !available.includes(name)) {
  console.error(`usage: npm run bench -- <${available.join('|') || 'none yet'}>`);
  process.exit(2);
}
await import(`./${name}.ts`);
