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
    let wake: () => void = () => undefined;
    // Read once after subscribing: a change committed between the first read and LISTEN is not lost.
    let dirty = true;
    const unsubscribe = DATABASE_URL
      ? await jobNotifications(DATABASE_URL, databaseLimits(config)).subscribe(key, () => {
          dirty = true;
          wake();
        })
      : () => undefined;
    stream.onAbort(() => wake());
    try {
      let last = first;
      let lastJson = JSON.stringify(first.data);
      let lastProgressAt = 0;
      await stream.writeSSE({ event: 'stage', data: lastJson });
      while (!last.terminal && !stream.aborted) {
        if (!dirty) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, FALLBACK_READ_MS).unref();
          });
        }
        if (stream.aborted) break;
        dirty = false;
        const view = await read();
        const json = JSON.stringify(view.data);
        if (view.stage !== last.stage || view.terminal) {
          await stream.writeSSE({ event: 'stage', data: json });
        } else if (json !== lastJson) {
          const wait = lastProgressAt + PROGRESS_EVERY_MS - Date.now();
          if (wait > 0) {
            // Too soon for another progress message: look again when one is allowed.
            await stream.sleep(wait);
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
