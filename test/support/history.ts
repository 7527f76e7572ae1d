import type { Client, WorkflowHandle } from '@temporalio/client';

type HistoryEvent = NonNullable<Awaited<ReturnType<WorkflowHandle['fetchHistory']>>['events']>[number];

/** The events of every run of a workflow, oldest run first, following continue-as-new back to the first run. */
async function runsOf(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const { events } = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    runs.unshift(events ?? []);
    runId = events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? undefined;
    if (!runId) return runs;
  }
}

/** Event counts of every run of a workflow, oldest first. */
export async function historyOf(client: Client, workflowId: string): Promise<number[]> {
  return (await runsOf(client, workflowId)).map((events) => events.length);
}

/** The ordinary activities the workflow's runs scheduled (not its local ones), by type, in order. */
export async function scheduledActivities(client: Client, workflowId: string): Promise<string[]> {
  return (await runsOf(client, workflowId)).flat().flatMap((e) => e.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
}
