import { continueAsNew, proxyActivities, sleep } from '@temporalio/workflow';
import type { MaintenanceActivities } from '../activities/maintenance.ts';
import type { MaintenanceInput } from '../src/temporal/maintenance.ts';

const { deleteExpiredRows } = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes' },
});

/** Sweeps per continue-as-new run: the history stays a few hundred events. */
const SWEEPS_PER_RUN = 50;

/** Deletes expired idempotency keys and verify cache rows every `intervalMs`, for as long as the service runs. */
export async function maintenanceWorkflow(input: MaintenanceInput): Promise<void> {
  for (let sweep = 0; sweep < SWEEPS_PER_RUN; sweep++) {
    await deleteExpiredRows();
    await sleep(input.intervalMs);
  }
  await continueAsNew<typeof maintenanceWorkflow>(input);
}
