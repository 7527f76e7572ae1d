/**
 * Live progress as Server-Sent Events (CONTRACT §9.4): `stage` for the first message and every stage or
 * status change, `progress` at most once a second while the job's view changes, and the stream ends after a
 * terminal state. Woken by PostgreSQL notifications, with a periodic re-read in case one is missed.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { databaseLimits } from '../db/pg-options.ts';
import { jobNotifications } from '../db/job-notifications.ts';
import type { AppEnv } from './env.ts';
import type { JobView } from '../jobs/views.ts';


const PROGRESS_EVERY_MS = 1_000;
const FALLBACK_READ_MS = 5_000;

/** `read` answers the job as its GET route shows it (and throws 404 for another organization's job). */
export async function streamJob(c: Context<AppEnv>, key: string, read: () => Promise<JobView>) {
  const first = await read();
  const { config } = c.var.deps;
  const { DATABASE_URL } = config;
  return streamSSE(c, async (stream) => {
    let last = first;
    // Read once after subscribing: a change committed between the first read and LISTEN is not lost.
    let dirty = true;
    // A notification named a stage other than the one last sent: shown at once, whatever the progress pace.
    let staged = false;
    let waiting: { resolve: () => void; anyChange: boolean } | null = null;
    const pause = (ms: number, anyChange: boolean) =>
      new Promise<void>((resolve) => {
        waiting = { resolve, anyChange };
        setTimeout(resolve, ms).unref();
      }).finally(() => (waiting = null));
    const unsubscribe = DATABASE_URL
      ? await jobNotifications(DATABASE_URL, databaseLimits(config)).subscribe(key, (stage) => {
          dirty = true;
          if (stage !== undefined && stage !== last.stage) staged = true;
          if (waiting && (waiting.anyChange || staged)) waiting.resolve();
        })
      : () => undefined;
    stream.onAbort(() => waiting?.resolve());
    try {
      let lastJson = JSON.stringify(first.data);
      let lastProgressAt = 0;
      await stream.writeSSE({ event: 'stage', data: lastJson });
      while (!last.terminal && !stream.aborted) {
        if (!dirty) await pause(FALLBACK_READ_MS, true);
        if (stream.aborted) break;
        dirty = false;
        staged = false;
        const view = await read();
        const json = JSON.stringify(view.data);
        if (view.stage !== last.stage || view.terminal) {
          await stream.writeSSE({ event: 'stage', data: json });
        } else if (json !== lastJson) {
          const wait = lastProgressAt + PROGRESS_EVERY_MS - Date.now();
          if (wait > 0) {
            // Too soon for another progress message: look again when one is allowed, or when the stage changes.
            if (!staged) await pause(wait, false);
            dirty = true;
            continue;
          }
          await stream.writeSSE({ event: 'progress', data: json });
          lastProgressAt = Date.now();
        }
        last = view;
        lastJson = json;
      }
    } finally {
      unsubscribe();
    }
  });
}
