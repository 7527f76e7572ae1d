import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure, type Page } from './api.ts';
import { onRecovered, reportReached, reportUnreachable } from './connection.ts';
import { num, share } from './format.ts';

export const fullName = (person: { firstName: string | null; lastName: string | null }) =>
  [person.firstName, person.lastName].filter(Boolean).join(' ') || '—';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An error as the user reads it: the API's sentence, announced to screen readers. */
export function ErrorNote({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  if (!error) return null;
  const problems = error instanceof ApiFailure ? Object.keys(error.fields) : [];
  const shownBeside = problems.length > 0 && problems.every((field) => fields.includes(field));
  return (
    <p class="error" role="alert">
      {shownBeside ? 'Please correct the marked field.' : messageOf(error)}
    </p>
  );
}

/** A field's own problem, under the field: from the service's validation answer or the form's own check. */
export function FieldError({ error, field, id }: { error: unknown; field: string; id?: string }) {
  const text = error instanceof ApiFailure ? error.fields[field] : undefined;
  if (!text) return null;
  return (
    <span class="field-error" id={id ?? `${field}-error`}>
      {text.charAt(0).toUpperCase() + text.slice(1)}.
    </span>
  );
}

/** A failure the form finds before sending, worded like the service's, so FieldError shows it the same way. */
export const invalidField = (field: string, text: string) =>
  new ApiFailure(400, 'validation_error', text.charAt(0).toUpperCase() + text.slice(1) + '.', { [field]: text });

/** What could not be loaded, in words, and a way to try again (instead of "Loading…" forever). */
export function LoadFailed({ error, what, onRetry }: { error: unknown; what: string; onRetry: () => void }) {
  return (
    <div class="error load-failed" role="alert">
      <span>
        Could not load {what}. {messageOf(error)}
      </span>{' '}
      <button type="button" onClick={onRetry}>
        Retry
      </button>
    </div>
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
  return (
    <div class="progress">
      <progress max={Math.max(total, 1)} value={done} aria-label={label} />
      <span>
        {num(done)} of {num(total)} ({share(done, total)})
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
        Page {num(page.page)} of {num(page.totalPages)} ({num(page.total)} in all)
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
  useEffect(() => onRecovered(reload), [reload]);
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
 * closes the stream at a terminal state, so the browser does not reconnect to a finished job. A dropped stream
 * marks the connection lost; the browser reconnects by itself, and a stream it gave up on is opened again once
 * the service answers (its first message is the job as it is then).
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
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!path) return;
    const source = new EventSource(path);
    let ended = false;
    const receive = (event: MessageEvent<string>) => {
      reportReached();
      const job = JSON.parse(event.data) as T;
      callback.current(job);
      if (terminal.current(job)) {
        ended = true;
        source.close();
      }
    };
    source.addEventListener('stage', receive);
    source.addEventListener('progress', receive);
    source.addEventListener('open', reportReached);
    source.addEventListener('error', () => {
      if (ended) return;
      reportUnreachable();
      if (source.readyState === EventSource.CLOSED) source.close();
    });
    const stopListening = onRecovered(() => {
      if (!ended && source.readyState === EventSource.CLOSED) setAttempt((n) => n + 1);
    });
    return () => {
      stopListening();
      source.close();
    };
  }, [path, attempt]);
}

/**
 * The confirmation before anything paid starts: the first press shows the total in words and asks; only the
 * second press ("Confirm and pay") does it.
 */
export function PaidAction({
  label,
  total,
  what,
  onConfirm,
  disabled,
  class: buttonClass = 'primary',
  testId,
}: {
  label: ComponentChildren;
  /** The amount in words: "$0.0015", "at most 9 credits". */
  total: string;
  /** What is bought: "verify 3 addresses with the provider". */
  what: string;
  onConfirm: () => void;
  disabled?: boolean;
  class?: string;
  testId?: string;
}) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class={buttonClass} disabled={disabled} onClick={() => setAsking(true)} data-testid={testId}>
        {label}
      </button>
    );
  return (
    <div class="confirm-spend" role="group" aria-label="Confirm the payment" data-testid="confirm-spend">
      <p>
        <strong>{total}</strong> to {what}. Nothing is charged until you confirm.
      </p>
      <div class="confirm">
        <button
          type="button"
          class="primary"
          disabled={disabled}
          onClick={() => {
            setAsking(false);
            onConfirm();
          }}
        >
          Confirm and pay {total}
        </button>
        <button type="button" onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
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
  return <span class={`status s-${value.toLowerCase().replace(/[^a-z]/g, '')}`}>{value}</span>;
}

/** A parameter of the hash route's query (`#/verification?list=<id>`). */
export const hashParam = (name: string) => new URLSearchParams(location.hash.split('?')[1] ?? '').get(name);
