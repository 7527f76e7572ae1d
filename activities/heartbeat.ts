import { Context } from '@temporalio/activity';

// The SDK sends at most one heartbeat per 80 % of the heartbeat timeout, so a short local interval costs nothing.
const EVERY_MS = 1_000;

/**
 * Runs `work` heartbeating on a timer, so long waits (SMTP queues, provider rate limits, search slots) never
 * look dead and a killed worker's activity moves to another within the heartbeat timeout. `beat` heartbeats
 * at once (after progress); `details` is what each heartbeat carries for a retry to resume from.
 */
export async function heartbeating<T>(
  work: (ctx: Context, beat: () => void) => Promise<T>,
  details?: () => unknown,
): Promise<T> {
  const ctx = Context.current();
  const beat = () => ctx.heartbeat(details?.());
  const timer = setInterval(beat, EVERY_MS);
  try {
    return await work(ctx, beat);
  } finally {
    clearInterval(timer);
  }
}
