import { proxyActivities } from '@temporalio/workflow';
import type { VerifySingleActivities } from '../activities/verify-single.ts';
import type { CheckRecord, SingleCheckInput } from '../src/verify/messages.ts';

/** Slack for the activity to store its answer after the probe's own deadline has passed. */
const STORE_MARGIN_MS = 2_000;

/**
 * One real-time address check. A caller is waiting, so there is a single attempt: a retry could not
 * answer within the caller's deadline, and the caller may simply ask again.
 */
export async function singleVerifyWorkflow(input: SingleCheckInput): Promise<CheckRecord> {
  const { verifySingleAddress } = proxyActivities<VerifySingleActivities>({
    startToCloseTimeout: input.timeoutMs + STORE_MARGIN_MS,
    retry: { maximumAttempts: 1 },
  });
  return verifySingleAddress(input);
}
