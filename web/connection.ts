// Whether the service answers. A call or a live stream that cannot reach it marks the connection lost; from then
// on /healthz is asked again with a growing pause until it answers, and the screens reload what they show.

export interface ConnectionState {
  lost: boolean;
  /** When the next try starts (ms since the epoch), while lost. */
  nextTryAt: number | null;
}

let state: ConnectionState = { lost: false, nextTryAt: null };
let timer: ReturnType<typeof setTimeout> | undefined;
let pause = 1000;
const stateListeners = new Set<(state: ConnectionState) => void>();
const recoveredListeners = new Set<() => void>();

const publish = (next: ConnectionState) => {
  state = next;
  stateListeners.forEach((listener) => listener(state));
};

async function probe() {
  try {
    const res = await fetch('/healthz', { cache: 'no-store', signal: AbortSignal.timeout(5000) });
    if (res.ok) return reportReached();
  } catch {
    // still unreachable: try again later
  }
  schedule();
}

function schedule() {
  pause = Math.min(pause * 2, 15_000);
  clearTimeout(timer);
  timer = setTimeout(() => void probe(), pause);
  publish({ lost: true, nextTryAt: Date.now() + pause });
}

/** A request or stream could not reach the service. */
export function reportUnreachable() {
  if (state.lost) return;
  pause = 1000;
  schedule();
}

/** The service answered: when it had been lost, everyone reloads. */
export function reportReached() {
  if (!state.lost) return;
  clearTimeout(timer);
  publish({ lost: false, nextTryAt: null });
  recoveredListeners.forEach((listener) => listener());
}

/** Tries at once (the bar's "Retry now"). */
export function retryNow() {
  clearTimeout(timer);
  void probe();
}

export const connectionState = () => state;

export function onConnectionChange(listener: (state: ConnectionState) => void): () => void {
  stateListeners.add(listener);
  return () => stateListeners.delete(listener);
}

/** Called once the service answers again after being lost. */
export function onRecovered(listener: () => void): () => void {
  recoveredListeners.add(listener);
  return () => recoveredListeners.delete(listener);
}
