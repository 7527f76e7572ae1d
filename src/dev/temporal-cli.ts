import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

// Later CLI tags cannot be built with `go install` (their go.mod carries replace directives).
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

const EXE = process.platform === 'win32' ? '.exe' : '';

export class TemporalCliPathError extends Error {
  constructor(cliPath: string) {
    super(`TEMPORAL_CLI_PATH is set to ${cliPath}, which is not an executable file.`);
    this.name = 'TemporalCliPathError';
  }
}

export interface ResolveTemporalCliOptions {
  /** Build the CLI with Go into the cache when no binary is found. */
  install?: boolean;
  log?: (line: string) => void;
  /** Stops a running build. */
  signal?: AbortSignal;
}

/** The cache lives outside any clone, so fresh checkouts and CI runs on the same machine share one build. */
export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const cacheHome = env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(cacheHome, 'lead-enrichment', 'bin');
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findOnPath(name: string, extraDirs: string[] = []): Promise<string | null> {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...dirs, ...extraDirs]) {
    const candidate = path.join(dir, name + EXE);
    if (await isExecutable(candidate)) return candidate;
  }
  return null;
}

async function goInstall(
  goBinary: string,
  targetDir: string,
  log: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  await mkdir(targetDir, { recursive: true });
  log(
    `Building the Temporal CLI (${TEMPORAL_CLI_MODULE}) with ${goBinary} into ${targetDir}; the first build takes a few minutes.`,
  );
  const child = spawn(goBinary, ['install', TEMPORAL_CLI_MODULE], {
    env: { ...process.env, GOBIN: targetDir },
    stdio: ['ignore', 'pipe', 'pipe'],
    signal,
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => log(`go: ${line}`));
  }
  const code = await new Promise<number | null>((resolve) => {
    child.once('error', (err) => {
      log(`go install could not start: ${err.message}`);
      resolve(null);
    });
    child.once('close', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) log(`go install failed (exit code ${code ?? 'none'}).`);
  return code === 0;
}

/**
 * Finds a `temporal` binary: `TEMPORAL_CLI_PATH`, then `temporal` on PATH, then the shared cache; with `install`,
 * builds it into the cache when Go is available. Null when none can be had.
 */
export async function resolveTemporalCli(opts: ResolveTemporalCliOptions = {}): Promise<string | null> {
  const log = opts.log ?? ((line: string) => console.error(line));
  const explicit = process.env.TEMPORAL_CLI_PATH;
  if (explicit) {
    if (await isExecutable(explicit)) return explicit;
    throw new TemporalCliPathError(explicit);
  }

  const onPath = await findOnPath('temporal');
  if (onPath) return onPath;

  const cacheDir = temporalCliCacheDir();
  const cached = path.join(cacheDir, 'temporal' + EXE);
  if (await isExecutable(cached)) return cached;
  if (!opts.install) return null;

  const go = await findOnPath('go', ['/usr/local/go/bin']);
  if (!go) {
    log('No Temporal CLI found and Go is not installed, so it cannot be built.');
    return null;
  }
  if (!(await goInstall(go, cacheDir, log, opts.signal))) return null;
  return (await isExecutable(cached)) ? cached : null;
}
