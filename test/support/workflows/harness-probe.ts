import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';

export interface ProbeActivities {
  countOrganizations(): Promise<number>;
}

export const proceed = defineSignal('proceed');

const { countOrganizations } = proxyActivities<ProbeActivities>({ startToCloseTimeout: '10s' });

/** Proves the harness: a dev server with the search attributes, a worker, an activity with database I/O, a signal. */
export async function harnessProbe(): Promise<number> {
  let go = false;
  setHandler(proceed, () => {
    go = true;
  });
  await condition(() => go);
  return countOrganizations();
}
