import type { Orm } from '../db/orm.ts';
import { API_PRICE_MICROS } from '../domain/verification.ts';
import type { BatchRun } from '../jobs/batch-run.ts';
import type { EmailVerificationProvider } from '../providers/verification/types.ts';
import { loadVerificationWork, pendingApiAddresses, pendingApiCount, recordApiVerdicts } from './repository-work.ts';

/** One call sends batches for at most this long, then hands back to the workflow. */
const API_RUN_BUDGET_MS = 60_000;

/**
 * The provider stage: sends the addresses marked for the provider in batches of its `maxBatch`, each batch's
 * verdicts and spend stored in one transaction. Returns how many are still waiting when the time budget ends.
 */
export async function verifyByProvider(
  deps: { orm: Orm; provider: EmailVerificationProvider },
  jobId: string,
  run: BatchRun,
): Promise<{ sent: number; remaining: number }> {
  const { provider } = deps;
  const em = deps.orm.em.fork();
  const job = await loadVerificationWork(em, jobId);
  const started = Date.now();
  let sent = 0;
  while (Date.now() - started < API_RUN_BUDGET_MS) {
    run.signal.throwIfAborted();
    const batch = await pendingApiAddresses(em, jobId, provider.maxBatch);
    if (batch.length === 0) return { sent, remaining: 0 };
    const verdicts = await provider.verify(batch.map((a) => a.email));
    const rows = batch.map((a, i) => ({
      id: a.id,
      email: a.email,
      result: verdicts[i]?.result ?? 'Unknown',
      reason: verdicts[i]?.reason ?? 'no verdict returned',
    }));
    await recordApiVerdicts(em, job, rows, provider.name, API_PRICE_MICROS);
    sent += batch.length;
    run.beat();
  }
  return { sent, remaining: await pendingApiCount(em, jobId) };
}
