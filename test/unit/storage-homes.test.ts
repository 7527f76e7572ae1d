import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The home rule (README, Layout): a repository lives beside its only owner, src/<feature>/repository*.ts;
// src/db/repos keeps only what two features share. A feature is a folder under src/ (activities, routes, tests
// and benchmarks are adapters and users, not owners).
const SRC = path.resolve('src');
const SHARED = path.join(SRC, 'db', 'repos');

// Single-owner repositories still in src/db/repos, each with why it waits; an entry fails once it has moved or
// gained a second owner, so the list only shrinks.
const WAITING: Record<string, { owner: string; why: string }> = {
  'lead-write-back.ts': { owner: 'verification', why: 'moves with the deferred-address work on src/verification' },
  'smtp-budget.ts': { owner: 'smtp', why: 'moves with the SMTP engine work on src/smtp' },
};

const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Each shared repository → the features (folders under src/, src/db aside) whose files import it. */
function ownersOfShared(): Map<string, Set<string>> {
  const owners = new Map(readdirSync(SHARED).map((name) => [name, new Set<string>()]));
  for (const file of sourceFiles(SRC)) {
    const feature = path.relative(SRC, file).split(path.sep);
    if (feature.length < 2 || feature[0] === 'db') continue;
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const target = path.resolve(path.dirname(file), specifier!);
      if (path.dirname(target) === SHARED) owners.get(path.basename(target))?.add(feature[0]!);
    }
  }
  return owners;
}

describe('storage homes', () => {
  const owners = ownersOfShared();

  it('src/db/repos keeps only repositories that two features share', () => {
    const single = [...owners].filter(([name, users]) => users.size < 2 && !WAITING[name]).map(([name, users]) => `${name}: ${[...users].join(', ') || 'no feature'}`);
    expect(single, 'move each beside its only owner as src/<feature>/repository*.ts').toEqual([]);
  });

  it('the repositories waiting to move still have their one owner', () => {
    for (const [name, { owner }] of Object.entries(WAITING)) expect([...(owners.get(name) ?? [])], name).toEqual([owner]);
  });
});
