import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The home rule (README, Layout: "Storage homes"): a repository lives beside its only owner, as
// src/<feature>/repository*.ts; src/db/repos keeps only what two features share. A feature is a folder under src/;
// activities, workflows, routes' adapters, tests and benchmarks use storage but do not own it, and src/db and
// src/jobs (what every job kind shares) are homes, not owners.
const HOMES = new Set(['db', 'jobs']);
const REPOSITORY = /^repository(-[\w-]+)?\.ts$/;
const IMPORT = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/** [feature, rest] of a file under src/, or undefined outside it. */
function placeOf(src, file) {
  const parts = path.relative(src, file).split(path.sep);
  return parts.length < 2 || parts[0] === '..' ? undefined : parts;
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The features whose files import `target` (read from disk: the owners are the whole tree's, not this file's). */
function ownersOf(src, target) {
  const owners = new Set();
  for (const file of sourceFiles(src)) {
    const [feature] = placeOf(src, file) ?? [];
    if (feature === undefined || HOMES.has(feature)) continue;
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (path.resolve(path.dirname(file), specifier) === target) owners.add(feature);
    }
  }
  return owners;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'A repository lives beside its only owner; src/db/repos keeps only what two features share.' },
    schema: [],
    messages: {
      foreign: "{{target}} is {{owner}}'s repository: a repository two features use moves to src/db/repos/.",
      single: '{{name}} is used by {{owners}} only: move it beside its owner as src/<feature>/repository-*.ts.',
    },
  },
  create(context) {
    const src = path.join(context.cwd, 'src');
    const place = placeOf(src, context.filename);
    if (!place) return {};
    const [feature, ...rest] = place;
    const checkImport = (node) => {
      const specifier = node.source?.value;
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = placeOf(src, path.resolve(path.dirname(context.filename), specifier));
      if (!target || target.length !== 2 || HOMES.has(target[0]) || target[0] === feature || !REPOSITORY.test(target[1])) return;
      context.report({ node: node.source, messageId: 'foreign', data: { target: `src/${target.join('/')}`, owner: target[0] } });
    };
    const shared = feature === 'db' && rest.length === 2 && rest[0] === 'repos';
    return {
      ImportDeclaration: checkImport,
      ImportExpression: checkImport,
      ExportNamedDeclaration: checkImport,
      ExportAllDeclaration: checkImport,
      Program(node) {
        if (!shared) return;
        const owners = ownersOf(src, context.filename);
        if (owners.size < 2) context.report({ node, messageId: 'single', data: { name: `src/db/${rest.join('/')}`, owners: [...owners].join(', ') || 'no feature' } });
      },
    };
  },
};
