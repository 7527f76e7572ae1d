import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, type Page } from './api.ts';

export const money = (dollars: number) => `$${dollars.toFixed(dollars < 1 && dollars !== 0 ? 4 : 2)}`;
export const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');
export const words = (token: string) => token.replaceAll('_', ' ');
// "1 row", "3 rows": the screens count things in sentences.
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
export const percent = (value: number) => `${value.toFixed(2)} %`;
export const fullName = (person: { firstName: string | null; lastName: string | null }) =>
  [person.firstName, person.lastName].filter(Boolean).join(' ') || '—';

export function messageOf(error: unknown): string {
  if (error instanceof ApiFailure) return error.message;
  return error instanceof Error ? error.message : String(error);
}

/** An error as the user reads it: the API's sentence, announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {messageOf(error)}
    </p>
  );
}

/** A failed job's reason, where the job is shown. */
export function JobFailure({ reason }: { reason: string | null }) {
  return (
    <p class="error" role="alert">
      The job failed: {reason ?? 'no reason was recorded.'}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Progress({ done, total, label }: { done: number; total: number; label: string }) {
  const pct = total > 0 ? Math.round((done / total) * 100) : 0;
  return (
    <div class="progress">
      <progress max={Math.max(total, 1)} value={done} aria-label={label} />
      <span>
        {done} of {total} ({pct} %)
      </span>
    </div>
  );
}

export function Pager({ page, onPage }: { page: Page<unknown>; onPage: (page: number) => void }) {
  if (page.totalPages <= 1) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={page.page <= 1} onClick={() => onPage(page.page - 1)}>
        Previous
      </button>
      <span>
        Page {page.page} of {page.totalPages} ({page.total} in all)
      </span>
      <button type="button" disabled={page.page >= page.totalPages} onClick={() => onPage(page.page + 1)}>
        Next
      </button>
    </nav>
  );
}

/** Loads `load()` now and whenever a dependency changes; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    load().then(
      (value) => {
        if (mine !== generation.current) return;
        setData(value);
        setError(null);
      },
      (failure: unknown) => {
        if (mine === generation.current) setError(failure);
      },
    );
  }, deps);
  useEffect(reload, [reload]);
  return { data, error, reload, setData };
}

/** Runs an action with its own busy flag and error, for buttons and forms. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}

/**
 * Follows a job over Server-Sent Events (`stage` and `progress` messages carry the job as its GET shows it) and
 * closes the stream at a terminal state, so the browser does not reconnect to a finished job.
 */
export function useJobEvents<T>(
  path: string | null,
  onJob: (job: T) => void,
  isTerminal: (job: T) => boolean,
) {
  const callback = useRef(onJob);
  callback.current = onJob;
  const terminal = useRef(isTerminal);
  terminal.current = isTerminal;
  useEffect(() => {
    if (!path) return;
    const source = new EventSource(path);
    const receive = (event: MessageEvent<string>) => {
      const job = JSON.parse(event.data) as T;
      callback.current(job);
      if (terminal.current(job)) source.close();
    };
    source.addEventListener('stage', receive);
    source.addEventListener('progress', receive);
    return () => source.close();
  }, [path]);
}

/** A two-step destructive button: the first press asks, the second does it. */
export function ConfirmButton({
  label,
  confirm,
  onConfirm,
  disabled,
}: {
  label: string;
  confirm: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirm}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export function Status({ value }: { value: string | null }) {
  if (!value) return <span class="status none">not verified</span>;
  return <span class={`status s-${value.toLowerCase().replace(/[^a-z]/g, '')}`}>{words(value)}</span>;
}

/** A parameter of the hash route's query (`#/verification?list=<id>`). */
export const hashParam = (name: string) => new URLSearchParams(location.hash.split('?')[1] ?? '').get(name);
