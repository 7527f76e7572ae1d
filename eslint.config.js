import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import queryDialect from './eslint-rules/query-dialect.js';
import storageHomes from './eslint-rules/storage-homes.js';

const HTTP = { group: ['**/http/*', '**/http/**'], message: 'Code below the HTTP layer must not depend on it: move what it needs down (src/errors.ts, src/domain/).' };
// The sandbox's stand-ins are for `npm run dev` and the tests: production code never reaches them.
const SANDBOX = { group: ['**/sandbox/*', '**/sandbox/**'], message: 'Only src/dev and the tests may use the sandbox stand-ins.' };
const STORAGE = {
  group: ['**/db/repos/**', '**/db/entities/**', '**/repository.ts', '**/repository-*.ts'],
  message: 'The HTTP layer calls services (src/<feature>/service.ts); repositories and entities stay below it.',
};
const DOMAIN_IO = [
  '**/db/**', '**/smtp/**', '**/providers/**', '**/directory/**', '**/temporal/**', '**/webhooks/**', '**/enrichment/**', '**/single-check/**',
  '**/auth/**', '**/rate-limit/**', '**/jobs/**', '**/csv/**', '**/activities/**', '**/workflows/**',
  '**/verification/**', '**/scrape/**', '**/lists/**', '**/accounts/**', '**/settings/**', '**/idempotency/**',
  'pg', 'kysely', '@mikro-orm/*', '@temporalio/*', 'undici',
  'node:net', 'node:dns', 'node:http', 'node:https', 'node:fs', 'node:fs/*', 'node:child_process', 'node:tls',
];
const OUTSIDE_DB = [
  '**/smtp/**', '**/providers/**', '**/directory/**', '**/temporal/**', '**/webhooks/**', '**/activities/**', '**/workflows/**', '@temporalio/*', 'undici',
  '**/service.ts', '**/engine.ts', '**/engine-*.ts',
];
// The worker (src/worker.ts) wires activities and workflows; everything else below HTTP starts workflows by type.
const RUNTIME = {
  group: ['**/activities/*', '**/workflows/*'],
  allowTypeImports: true,
  message: 'Below HTTP, workflows and activities are imported as types only (import type); src/worker.ts wires them.',
};
// A job kind's repositories: src/<kind>/repository*.ts, with the shared ones in src/db.
const REPOSITORIES = ['src/db/**/*.ts', 'src/*/repository.ts', 'src/*/repository-*.ts'];

function layer(what, files, ignores, patterns) {
  return {
    files,
    ignores,
    rules: { 'no-restricted-imports': ['error', { patterns: [{ ...HTTP, message: `${what} must not depend on the HTTP layer: move what it needs down (src/errors.ts, src/domain/).` }, SANDBOX, ...patterns] }] },
  };
}

export default tseslint.config(
  { ignores: ['node_modules/', '.data/', 'dist/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Plain JavaScript that runs under any Node before the project's own checks (scripts/require-node.mjs).
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  // Dependencies point down. Each block states what one layer must not import; a file matched by two
  // blocks gets the later one's rule only, so every block repeats the prohibitions that hold everywhere.
  layer('Code below the HTTP layer', ['src/**/*.ts'], ['src/http/**', 'src/main.ts', 'src/dev/**'], [RUNTIME]),
  layer('Activities', ['activities/**/*.ts', 'src/worker.ts'], [], []),
  { files: ['src/main.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [SANDBOX] }] } },
  { files: ['src/http/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [SANDBOX, STORAGE] }] } },
  // The dev entry starts the sandbox, but stays below HTTP like every other process part.
  { files: ['src/dev/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [HTTP] }] } },
  layer('The domain', ['src/domain/**/*.ts'], [], [
    { group: DOMAIN_IO, message: 'The domain holds rules and types only: do I/O in db/, smtp/, providers/ or activities/.' },
  ]),
  layer('Temporal plumbing', ['src/temporal/**/*.ts'], [], [
    { group: ['**/activities/**', '**/workflows/**', '**/service.ts', '**/engine.ts', '**/engine-*.ts'], message: 'src/temporal holds messages, the client and setup; the worker that wires activities and workflows is src/worker.ts.' },
  ]),
  layer('The database layer', REPOSITORIES, [], [
    RUNTIME,
    { group: OUTSIDE_DB, message: 'The database layer stores and reads; it must not call mail hosts, providers, Temporal, services or engines.' },
  ]),
  {
    // Where storage lives and how it is queried (README: Layout, "Storage homes"; Development, "Queries").
    files: ['src/**/*.ts'],
    plugins: { local: { rules: { 'storage-homes': storageHomes, 'query-dialect': queryDialect } } },
    rules: {
      'local/storage-homes': 'error',
      'local/query-dialect': 'error',
    },
  },
  {
    // Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, no I/O modules.
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'fs', 'net', 'dns', 'http', 'https', 'crypto', 'child_process'], message: 'Workflows must stay deterministic: do I/O in activities.' },
            { group: ['**/http/*', '**/http/**'], message: 'Workflows must not depend on the HTTP layer.' },
            SANDBOX,
            { group: ['**/activities/*', '!**/activities/index.ts'], message: 'Import activity types only (import type).', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
