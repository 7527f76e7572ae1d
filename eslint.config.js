import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
  {
    // Dependencies point down: only the process entry wires the HTTP layer; nothing below it imports from it.
    files: ['src/**/*.ts', 'activities/**/*.ts'],
    ignores: ['src/http/**', 'src/main.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/http/*', '**/http/**'], message: 'Code below the HTTP layer must not depend on it: move what it needs down (src/errors.ts, src/domain/).' }] },
      ],
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
            { group: ['**/activities/*', '!**/activities/index.ts'], message: 'Import activity types only (import type).', allowTypeImports: true },
          ],
        },
      ],
    },
  },
);
