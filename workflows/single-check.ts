import { proxyActivities } from '@temporalio/workflow';
import type { SingleCheckActivities } from '../activities/single-check.ts';
import type { CheckRecord, SingleCheckInput } from '../src/single-check/messages.ts';

/** Slack for the activity to store its answer after the probe's own deadline has passed. */
const STORE_MARGIN_MS = 2_000;

/**
 * One real-time address check. A caller is waiting, so there is a single attempt: a retry could not
 * answer within the caller's deadline, and the caller may simply ask again.
 */
async function singleCheckWorkflow(input: SingleCheckInput): Promise<CheckRecord> {
  const { verifySingleAddress } = proxyActivities<SingleCheckActivities>({
    startToCloseTimeout: input.timeoutMs + STORE_MARGIN_MS,
    retry: { maximumAttempts: 1 },
  });
  return verifySingleAddress(input);
}

// Registered under the type name that running checks and the recorded histories carry: a renamed workflow type
// would leave both without their code.
export { singleCheckWorkflow as singleVerifyWorkflow };
