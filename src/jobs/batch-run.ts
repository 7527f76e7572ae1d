/**
 * What a job kind's engine gets from whoever runs its batch (a Temporal activity, activities/heartbeat.ts): when to
 * stop (a worker shutting down, an operator's cancel) and how to say it is still alive after progress.
 */
export interface BatchRun {
  signal: AbortSignal;
  beat: () => void;
}
