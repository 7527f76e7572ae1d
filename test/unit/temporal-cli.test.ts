import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TemporalCliPathError, TEMPORAL_CLI_MODULE, resolveTemporalCli } from '../../src/dev/temporal-cli.ts';

let dir: string;

async function script(file: string, body: string, mode = 0o755): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `#!/bin/sh\n${body}\n`);
  await chmod(file, mode);
  return file;
}

describe('resolveTemporalCli', () => {
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'temporal-cli-'));
    vi.stubEnv('TEMPORAL_CLI_PATH', undefined);
    vi.stubEnv('XDG_CACHE_HOME', path.join(dir, 'cache'));
    vi.stubEnv('PATH', path.join(dir, 'bin'));
  });
  afterEach(async () => {
    vi.unstubAllEnvs();
    await rm(dir, { recursive: true, force: true });
  });

  it('uses TEMPORAL_CLI_PATH over a temporal on PATH', async () => {
    const explicit = await script(path.join(dir, 'tools', 'my-temporal'), 'exit 0');
    await script(path.join(dir, 'bin', 'temporal'), 'exit 0');
    vi.stubEnv('TEMPORAL_CLI_PATH', explicit);
    expect(await resolveTemporalCli()).toBe(explicit);
  });

  it('rejects a TEMPORAL_CLI_PATH that is not executable rather than silently using another binary', async () => {
    const notExecutable = await script(path.join(dir, 'tools', 'temporal'), 'exit 0', 0o644);
    await script(path.join(dir, 'bin', 'temporal'), 'exit 0');
    vi.stubEnv('TEMPORAL_CLI_PATH', notExecutable);
    await expect(resolveTemporalCli()).rejects.toBeInstanceOf(TemporalCliPathError);
  });

  it('prefers temporal on PATH over the cache', async () => {
    const onPath = await script(path.join(dir, 'bin', 'temporal'), 'exit 0');
    await script(path.join(dir, 'cache', 'lead-enrichment', 'bin', 'temporal'), 'exit 0');
    expect(await resolveTemporalCli()).toBe(onPath);
  });

  it('falls back to the build cached under XDG_CACHE_HOME', async () => {
    const cached = await script(path.join(dir, 'cache', 'lead-enrichment', 'bin', 'temporal'), 'exit 0');
    expect(await resolveTemporalCli()).toBe(cached);
  });

  it('answers null when nothing is found and installing was not asked for', async () => {
    expect(await resolveTemporalCli()).toBeNull();
  });

  it('builds the pinned CLI with go install into the cache, logging progress', async () => {
    await script(
      path.join(dir, 'bin', 'go'),
      [
        `[ "$1" = install ] && [ "$2" = "${TEMPORAL_CLI_MODULE}" ] || exit 3`,
        // PATH holds only the fake tools here: `command -p` finds chmod on the system default path.
        `printf '#!/bin/sh\\n' > "$GOBIN/temporal" && command -p chmod +x "$GOBIN/temporal"`,
        'echo "go: downloading something" >&2',
      ].join('\n'),
    );
    const lines: string[] = [];
    const cli = await resolveTemporalCli({ install: true, log: (line) => lines.push(line) });
    expect(cli).toBe(path.join(dir, 'cache', 'lead-enrichment', 'bin', 'temporal'));
    expect(lines.some((line) => line.includes('go: downloading something'))).toBe(true);
  });

  it('answers null when the go build fails', async () => {
    await script(path.join(dir, 'bin', 'go'), 'echo "no network" >&2; exit 1');
    const lines: string[] = [];
    expect(await resolveTemporalCli({ install: true, log: (line) => lines.push(line) })).toBeNull();
    expect(lines.some((line) => line.includes('go install failed'))).toBe(true);
  });
});
