import { deferredAddresses, deferredCount, stampDeferredRetry } from './repository-deferred.ts';
import { loadVerificationWork, writeSmtpOutcomes } from './repository-work.ts';
import type { BatchRun } from '../jobs/batch-run.ts';
import { fromOutcome, type VerificationEngineDeps } from './engine.ts';

const PAGE_SIZE = 1000;

/**
 * One later attempt (CONTRACT §7 `SMTP_GREYLIST_SCHEDULE`) for every deferred address of a job:
 * one RCPT each, with the worker's MAIL FROM and egress, the same triplet greylisting remembers
 * (the catch-all address too: it is derived from the job id, as in the first pass).
 * Answers are final; a 4xx again adds to the address's attempts and leaves it deferred.
 * Returns how many are still deferred; a job gone throws `JobGoneError`.
 */
export async function retryDeferred(deps: VerificationEngineDeps, jobId: string, run: BatchRun): Promise<{ deferred: number }> {
  const { orm, prober } = deps;
  const { signal } = run;
  await loadVerificationWork(orm.em.fork(), jobId);
  await stampDeferredRetry(orm.em.fork(), jobId, null);
  let afterId: string | null = null;
  for (;;) {
    const page = await deferredAddresses(orm.em.fork(), jobId, afterId, PAGE_SIZE);
    if (page.length === 0) break;
    afterId = page[page.length - 1]!.id;
    const byDomain = Map.groupBy(page, (a) => a.domain);
    await Promise.all(
      [...byDomain].map(async ([domain, addresses]) => {
        const idByEmail = new Map(addresses.map((a) => [a.email, a.id]));
        const probed = await prober.probeDomain(
          domain,
          addresses.map((a) => a.email),
          { signal, owner: jobId, attempts: 1, catchAllSeed: jobId },
        );
        const rows = probed.outcomes.flatMap((o) => {
          const id = idByEmail.get(o.email);
          return id === undefined ? [] : [fromOutcome(id, o)];
        });
        await writeSmtpOutcomes(orm.em.fork(), jobId, rows);
      }),
    );
  }
  return { deferred: await deferredCount(orm.em.fork(), jobId) };
}
