// Builds the dashboard (web/, Preact) into dist/dashboard/ when it is missing or older than its sources:
// `npm install` runs it (prepare), `npm run dev` and `npm start` run it before starting, so nobody runs a
// second command or a second dev server. A hash of the sources and the lock file decides "stale".
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_DIR, WEB_DIR } from '../src/http/dashboard-files.ts';

const ROOT = path.resolve(WEB_DIR, '..');
/** What the bundle is made of: its own sources, the pure rules it shares with the service, the sample files. */
const SOURCES = [WEB_DIR, path.join(ROOT, 'src', 'domain'), path.join(ROOT, 'examples')];
const STAMP = path.join(DASHBOARD_DIR, '.sources');

async function sourcesHash(): Promise<string> {
  const hash = createHash('sha256');
  const entries = (
    await Promise.all(SOURCES.map((dir) => readdir(dir, { recursive: true, withFileTypes: true })))
  ).flat();
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  for (const file of [...files, path.join(ROOT, 'package-lock.json')]) {
    hash.update(path.relative(ROOT, file)).update('\0');
    if (existsSync(file)) hash.update(await readFile(file));
  }
  return hash.digest('hex');
}

/** Builds when stale; answers whether it built. Without `web/` (a dependencies-only install) there is nothing to do. */
export async function ensureDashboardBuilt(): Promise<boolean> {
  if (!existsSync(WEB_DIR)) return false;
  const wanted = await sourcesHash();
  const built = existsSync(STAMP) ? await readFile(STAMP, 'utf8') : null;
  if (built === wanted && existsSync(path.join(DASHBOARD_DIR, 'index.html'))) return false;
  const { build } = await import('vite');
  await build({
    root: WEB_DIR,
    configFile: false,
    logLevel: 'warn',
    base: '/',
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    build: {
      outDir: DASHBOARD_DIR,
      emptyOutDir: true,
      assetsInlineLimit: 0,
      modulePreload: { polyfill: false },
    },
  });
  await writeFile(STAMP, wanted);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (await ensureDashboardBuilt())
    console.log(`dashboard built into ${path.relative(process.cwd(), DASHBOARD_DIR)}/`);
}
