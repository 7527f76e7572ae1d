import { localPartOf } from '../domain/email.ts';
import { scoreCatchAll, dominantTemplate, type CatchAllSignals } from '../domain/catch-all-score.ts';
import { type EmailTemplate, templatesOf } from '../domain/email-templates.ts';
import type { Orm } from '../db/orm.ts';
import type { BatchRun } from '../jobs/batch-run.ts';
import type { DirectoryAnswer, MicrosoftDirectory, TenantVerdict } from '../directory/microsoft.ts';
import { isRoleLocalPart } from '../smtp/flags.ts';
import {
  type Assessment,
  type CatchAllRow,
  directoryPending,
  scoreContext,
  type ScoreContext,
  storeAssessments,
  unscoredCatchAlls,
} from './repository-catch-all.ts';
import { loadVerificationWork } from './repository-work.ts';
import { addTemplateCounts } from '../db/repos/domain-templates.ts';
import { claimTemplateLearning, namedValidAddresses } from './repository-templates.ts';

const PAGE_SIZE = 500;
/** Directory lookups in flight at once for one job: the shared pacer decides when each really goes. */
const DIRECTORY_CONCURRENCY = 4;

export interface CatchAllEngineDeps {
  orm: Orm;
  /** The Microsoft directory (MS_DIRECTORY_CHECK=on), else null. */
  directory: Pick<MicrosoftDirectory, 'lookup' | 'tenant'> | null;
}

/** What the directory said of a page's Microsoft-hosted addresses: exists, absent, the tenant answers for anyone, or nothing yet. */
type DirectoryWord = { kind: 'exists'; ifExistsResult: number } | { kind: 'absent' } | { kind: 'accepts_all' } | { kind: 'none' };

/**
 * The Catch-All results of a job after its SMTP stage (CONTRACT §12): the Microsoft directory asked where it is on
 * and the tenant answers honestly, then a score with its reasons on every one still Catch-All. `retry` is the later
 * pass over the addresses the directory gave no verdict for, at a lower rate. Returns how many still wait for one.
 */
export async function assessCatchAlls(
  deps: CatchAllEngineDeps,
  input: { jobId: string; retry: boolean },
  run: BatchRun,
): Promise<{ assessed: number; directoryPending: number }> {
  const { orm } = deps;
  const job = await loadVerificationWork(orm.em.fork(), input.jobId);
  const tenants = new Map<string, Promise<TenantVerdict>>();
  let assessed = 0;
  let pending = 0;
  let afterId = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    run.signal.throwIfAborted();
    const em = orm.em.fork();
    const page = input.retry
      ? await directoryPending(em, input.jobId, afterId, PAGE_SIZE)
      : await unscoredCatchAlls(em, input.jobId, afterId, PAGE_SIZE);
    if (page.length === 0) break;
    afterId = page[page.length - 1]!.id;
    const words = await askDirectory(deps, page, tenants, input.retry, run);
    const context = await scoreContext(
      em,
      job,
      page.map((r) => r.email),
      [...new Set(page.map((r) => r.domain))],
    );
    const assessments = page.map((row) => assess(row, words.get(row.id) ?? { kind: 'none' }, context));
    pending += page.filter((row) => row.mailboxProvider === 'microsoft' && deps.directory && words.get(row.id)?.kind === 'none').length;
    assessed += await storeAssessments(em, input.jobId, assessments);
    run.beat();
  }
  return { assessed, directoryPending: pending };
}

function assess(row: CatchAllRow, word: DirectoryWord, context: ScoreContext): Assessment {
  if (word.kind === 'exists') return { id: row.id, kind: 'directory_valid', ifExistsResult: word.ifExistsResult };
  const counts = context.templates.get(row.domain);
  const signals: CatchAllSignals = {
    localPart: localPartOf(row.email),
    names: context.names.get(row.email) ?? null,
    domainTemplate: counts ? dominantTemplate(counts) : null,
    role: isRoleLocalPart(localPartOf(row.email)),
    providerAcceptsAll: row.mailboxProvider === 'yahoo' || word.kind === 'accepts_all',
    directoryAbsent: word.kind === 'absent',
    foundByProvider: context.found.has(row.email),
    prior: context.prior.get(row.email) ?? null,
  };
  const { score, reasons } = scoreCatchAll(signals);
  return { id: row.id, kind: 'scored', score, reasons, directoryResult: word.kind === 'absent' ? 1 : null };
}

/**
 * The directory's word on a page's Microsoft-hosted addresses. A tenant is trusted only once its canary (a random
 * address at the domain) was answered "absent"; a tenant that says "exists" to the canary answers for anyone.
 */
async function askDirectory(
  deps: CatchAllEngineDeps,
  page: CatchAllRow[],
  tenants: Map<string, Promise<TenantVerdict>>,
  slow: boolean,
  run: BatchRun,
): Promise<Map<string, DirectoryWord>> {
  const words = new Map<string, DirectoryWord>();
  const { directory } = deps;
  if (!directory) return words;
  const asked = page.filter((row) => row.mailboxProvider === 'microsoft');
  let next = 0;
  const worker = async () => {
    while (next < asked.length) {
      const row = asked[next++]!;
      let tenant = tenants.get(row.domain);
      if (!tenant) {
        tenant = directory.tenant(row.domain, { signal: run.signal });
        tenants.set(row.domain, tenant);
      }
      const verdict = await tenant;
      if (verdict === 'accepts_all') words.set(row.id, { kind: 'accepts_all' });
      else if (verdict === 'honest') words.set(row.id, wordOf(await directory.lookup(row.email, { slow, signal: run.signal })));
      else words.set(row.id, { kind: 'none' });
      run.beat();
    }
  };
  await Promise.all(Array.from({ length: Math.min(DIRECTORY_CONCURRENCY, asked.length) }, worker));
  return words;
}

function wordOf(answer: DirectoryAnswer): DirectoryWord {
  if (answer.kind === 'exists') return { kind: 'exists', ifExistsResult: answer.ifExistsResult };
  if (answer.kind === 'absent') return { kind: 'absent' };
  return { kind: 'none' };
}

/** Leads read per page while learning templates. */
const LEARN_PAGE = 2000;

/**
 * Adds the job's Valid addresses of people whose names the list holds to the domains' template counts (CONTRACT
 * §12: counts per template only, never an address), once per job: later Catch-All scores and the email finder use
 * them. Returns how many addresses taught a template.
 */
export async function learnTemplates(deps: Pick<CatchAllEngineDeps, 'orm'>, jobId: string, run: BatchRun): Promise<number> {
  const { orm } = deps;
  const job = await loadVerificationWork(orm.em.fork(), jobId);
  return orm.em.fork().transactional(async (tx) => {
    if (!(await claimTemplateLearning(tx, jobId))) return 0;
    const counts = new Map<string, number>();
    let afterId = '00000000-0000-0000-0000-000000000000';
    let taught = 0;
    for (;;) {
      const page = await namedValidAddresses(tx, jobId, job.listId, afterId, LEARN_PAGE);
      for (const row of page.rows) {
        // The first template in the default order that makes the address (`first` before `firstl` for "jane").
        const [template] = templatesOf(localPartOf(row.email), row.firstName, row.lastName);
        if (!template) continue;
        const key = `${row.domain}\u0000${template}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        taught++;
      }
      run.beat();
      if (page.lastId === null) break;
      run.signal.throwIfAborted();
      afterId = page.lastId;
    }
    await addTemplateCounts(
      tx,
      [...counts].map(([key, n]) => {
        const [domain, template] = key.split('\u0000') as [string, EmailTemplate];
        return { domain, template, n };
      }),
    );
    return taught;
  });
}
