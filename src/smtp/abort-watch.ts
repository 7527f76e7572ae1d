/**
 * Abort callbacks of many items on one signal. A slice's signal reaches every address it queues (a thousand and
 * more), and an EventTarget finds a listener to remove by scanning all of its listeners: one listener per signal,
 * and a set behind it, make adding and dropping an item's callback constant time.
 */
const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `onAbort` once if `signal` aborts; the returned function stops watching. */
export function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let callbacks = watchers.get(signal);
  if (!callbacks) {
    const set = new Set<() => void>();
    callbacks = set;
    watchers.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const callback of set) callback();
      },
      { once: true },
    );
  }
  const own = callbacks;
  own.add(onAbort);
  return () => own.delete(onAbort);
}
