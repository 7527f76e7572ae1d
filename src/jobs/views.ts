// What every job kind's view shares. Each kind shows its jobs as its GET routes answer (src/<kind>/views.ts), and
// webhook events (§9.3) carry the same shape, so an event's `data.job` never drifts from the API.

/** A job as its live stream (SSE, CONTRACT §9.4) shows it: its stage or status, whether it has ended, its view. */
export interface JobView {
  stage: string;
  terminal: boolean;
  data: unknown;
}

/** Every job kind ends `completed` or `failed`: its live stream ends there. */
export const liveView = (stage: string, data: unknown): JobView => ({ stage, terminal: stage === 'completed' || stage === 'failed', data });
