import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The layering is stated in eslint.config.js; each forbidden edge is linted here as if written into a real file
// of the layer, so a rule that stops matching (a renamed folder, a block overridden by a later one) fails CI.
const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = x;\n`, { filePath });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('lint states the layering', () => {
  it.each([
    ['the domain', 'src/domain/email.ts', "import { x } from '../db/orm.ts';"],
    ['the domain', 'src/domain/email.ts', "import { x } from '../smtp/prober.ts';"],
    ['the domain', 'src/domain/email.ts', "import { x } from 'pg';"],
    ['the domain', 'src/domain/email.ts', "import { x } from 'node:dns';"],
    ['the database layer', 'src/db/orm.ts', "import { x } from '../providers/http.ts';"],
    ['the database layer', 'src/db/repos/leads.ts', "import { x } from '../../smtp/prober.ts';"],
    ['the domain', 'src/domain/catch-all.ts', "import { x } from '../directory/microsoft.ts';"],
    ['the database layer', 'src/db/repos/leads.ts', "import { x } from '../../directory/microsoft.ts';"],
    ['the directory\'s repository', 'src/directory/repository.ts', "import { x } from '../providers/http.ts';"],
    ['production code', 'src/directory/microsoft.ts', "import { x } from '../sandbox/providers/ms-login.ts';"],
    ['Temporal plumbing', 'src/temporal/client.ts', "import { x } from '../../activities/index.ts';"],
    ['production code', 'src/smtp/prober.ts', "import { x } from '../sandbox/sandbox.ts';"],
    ['production code', 'activities/verification.ts', "import { x } from '../src/sandbox/sandbox.ts';"],
    ['production code', 'src/main.ts', "import { x } from './sandbox/sandbox.ts';"],
    ['production code', 'src/http/app.ts', "import { x } from '../sandbox/sandbox.ts';"],
    ['the HTTP layer', 'src/http/routes/lists.ts', "import { x } from '../../db/repos/lists.ts';"],
    ['the HTTP layer', 'src/http/routes/lists.ts', "import { x } from '../../db/entities/list.ts';"],
    ['the HTTP layer', 'src/http/routes/lists.ts', "import type { x } from '../../db/repos/lists.ts';"],
    ['the HTTP layer', 'src/http/routes/lists.ts', "import type { x } from '../../db/entities/list.ts';"],
    ['the HTTP layer', 'src/http/routes/scrape.ts', "import { x } from '../../scrape/repository.ts';"],
    ['the HTTP layer', 'src/http/routes/verification.ts', "import type { x } from '../../verification/repository-work.ts';"],
    ['the domain', 'src/domain/scrape.ts', "import { x } from '../scrape/service.ts';"],
    ['the domain', 'src/domain/verification.ts', "import { x } from '../verification/engine.ts';"],
    ['a job kind\'s repository', 'src/scrape/repository.ts', "import { x } from '../smtp/prober.ts';"],
    ['a job kind\'s repository', 'src/verification/repository-work.ts', "import { x } from '../providers/verification/index.ts';"],
    ['a job kind\'s repository', 'src/enrichment/repository.ts', "import { x } from './engine.ts';"],
    ['a job kind\'s repository', 'src/scrape/repository-items.ts', "import { x } from './service.ts';"],
    ['Temporal plumbing', 'src/temporal/shared.ts', "import { x } from '../scrape/service.ts';"],
    ['a service', 'src/scrape/service.ts', "import { scrapeWorkflow } from '../../workflows/scrape.ts';"],
    ['an engine', 'src/scrape/engine.ts', "import { scrapeActivities } from '../../activities/scrape.ts';"],
    ['code below HTTP', 'src/db/orm.ts', "import { x } from '../http/app.ts';"],
    ['code below HTTP', 'src/scrape/service.ts', "import { x } from '../http/multipart.ts';"],
    ['code below HTTP', 'src/domain/email.ts', "import { x } from '../http/app.ts';"],
    ['code below HTTP', 'src/dev/main.ts', "import { x } from '../http/app.ts';"],
    ['workflows', 'workflows/verification.ts', "import { x } from '../activities/verification.ts';"],
    ['workflows', 'workflows/verification.ts', "import { x } from 'node:crypto';"],
  ])('%s: %s refuses `%s`', async (_layer, file, code) => {
    expect(await restrictedImports(file, code)).not.toEqual([]);
  });

  it.each([
    ['the domain uses its own rules', 'src/domain/email.ts', "import { x } from './scrape.ts';"],
    ['the database layer uses the domain', 'src/db/orm.ts', "import { x } from '../domain/lead.ts';"],
    ['the HTTP layer calls services', 'src/http/routes/lists.ts', "import { x } from '../../lists/service.ts';"],
    ['the HTTP layer takes the ORM type', 'src/http/env.ts', "import type { x } from '../db/orm.ts';"],
    ['a service starts its workflow by type', 'src/scrape/service.ts', "import type { scrapeWorkflow } from '../../workflows/scrape.ts';"],
    ['a service uses its repository', 'src/scrape/service.ts', "import { x } from './repository.ts';"],
    ['an activity adapts its engine', 'activities/scrape.ts', "import { x } from '../src/scrape/engine.ts';"],
    ['the worker wires the activities', 'src/worker.ts', "import { createActivities } from '../activities/index.ts';"],
    ['the dev entry starts the sandbox', 'src/dev/main.ts', "import { x } from '../sandbox/sandbox.ts';"],
    ['workflows take activity types', 'workflows/verification.ts', "import type { x } from '../activities/verification.ts';"],
  ])('%s: %s allows `%s`', async (_what, file, code) => {
    expect(await restrictedImports(file, code)).toEqual([]);
  });
});
