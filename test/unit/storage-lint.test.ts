import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The storage rules live in eslint-rules/ and are wired in eslint.config.js; each is linted here as if written into a
// real file, so a rule that stops matching (a renamed folder, a block overridden by a later one) fails CI.
const eslint = new ESLint({ cwd: process.cwd() });

async function messages(filePath: string, code: string, rule: string, lint = eslint): Promise<string[]> {
  const [result] = await lint.lintText(code, { filePath });
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

describe('lint states the storage homes', () => {
  it.each([
    ['another feature\'s repository', 'src/finder/engine.ts', "export { x } from '../verification/repository-catch-all.ts';"],
    ['another feature\'s repository, dynamically', 'src/scrape/engine.ts', "export const x = import('../enrichment/repository.ts');"],
  ])('refuses %s', async (_what, file, code) => {
    expect(await messages(file, code, 'local/storage-homes')).not.toEqual([]);
  });

  it.each([
    ['its own repository', 'src/finder/engine.ts', "export { x } from './repository.ts';"],
    ['a shared repository', 'src/finder/engine.ts', "export { x } from '../db/repos/domain-templates.ts';"],
    ['what every job kind shares', 'src/scrape/engine.ts', "export { x } from '../jobs/repository.ts';"],
    ['a shared repository two features import', 'src/db/repos/leads.ts', 'export const x = 1;'],
  ])('accepts %s', async (_what, file, code) => {
    expect(await messages(file, code, 'local/storage-homes')).toEqual([]);
  });

  it('refuses a module of src/db/repos that fewer than two features import', async () => {
    // A file not on disk is outside the TypeScript project: linted without type information.
    const untyped = new ESLint({
      cwd: process.cwd(),
      overrideConfig: { files: ['src/**/*.ts'], languageOptions: { parserOptions: { projectService: false } }, rules: { '@typescript-eslint/no-floating-promises': 'off' } },
    });
    expect(await messages('src/db/repos/unshared.ts', 'export const x = 1;', 'local/storage-homes', untyped)).toEqual([
      'src/db/repos/unshared.ts is used by no feature only: move it beside its owner as src/<feature>/repository-*.ts.',
    ]);
  });
});

describe('lint states the query dialect', () => {
  const file = 'src/finder/repository.ts';
  it.each([
    ['a statement written in place', 'export const f = (em) => em.execute(`select 1`);'],
    ['a string written in place', "export const f = (em) => em.execute('select 1', []);"],
    ['a statement not named …_SQL', "const q = 'select 1';\nexport const f = (em) => em.execute(q);"],
    ['a constant not exported', "// Raw: why.\nconst Q_SQL = 'select 1';\nexport const f = (em) => runSql(em, Q_SQL);"],
    ['a constant without its why', "export const Q_SQL = 'select 1';\nexport const f = (em) => runSql(em, Q_SQL);"],
    ['a statement written in place for runSql', 'export const f = (em) => runSql(em, `select 1`);'],
    ['a raw statement given to em.execute, which inlines its values', "// Raw SQL: a set-based statement.\nexport const Q_SQL = 'select 1';\nexport const f = (em) => em.execute(Q_SQL);"],
  ])('refuses %s', async (_what, code) => {
    expect(await messages(file, code, 'local/query-dialect')).not.toEqual([]);
  });

  it.each([
    ['an exported, commented …_SQL constant', "// Raw SQL: a set-based statement.\nexport const Q_SQL = 'select 1';\nexport const f = (em) => runSql(em, Q_SQL);"],
    ['one imported from its module', "import { STORE_SMTP_BATCH_SQL } from '../verification/repository-work.ts';\nexport const f = (em) => runSql(em, STORE_SMTP_BATCH_SQL);"],
    ['kysely', "import { kysely } from '../db/kysely.ts';\nexport const f = (em) => kysely(em).selectFrom('lead').selectAll().execute();"],
  ])('accepts %s', async (_what, code) => {
    expect(await messages(file, code, 'local/query-dialect')).toEqual([]);
  });
});
