import type { Client } from '@temporalio/client';

/** Event counts of every run of a workflow, following continue-as-new back to the first run. */
export async function historyOf(client: Client, workflowId: string): Promise<number[]> {
  const counts: number[] = [];
  let runId: string | undefined;
  for (;;) {
    const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    counts.unshift(events?.length ?? 0);
    runId = events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return counts;
  }
}
