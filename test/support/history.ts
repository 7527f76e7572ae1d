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

/** The ordinary activities the workflow's runs scheduled (not its local ones), by type, in order. */
export async function scheduledActivities(client: Client, workflowId: string): Promise<string[]> {
  const types: string[] = [];
  let runId: string | undefined;
  for (;;) {
    const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    types.unshift(...(events ?? []).flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []));
    runId = events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return types;
  }
}
