import { AsyncLocalStorage } from 'node:async_hooks';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: Level = (process.env.LOG_LEVEL as Level | undefined) ?? 'info';

export function setLogLevel(level: Level) {
  threshold = level;
}

// What every line written while handling one request or one activity carries: request id, organization id, job id.
const context = new AsyncLocalStorage<Record<string, unknown>>();

/** Runs `fn` with `fields` added to every log line it writes, however deep. */
export function withLogContext<T>(fields: Record<string, unknown>, fn: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, fn);
}

/** Adds fields to the current context (e.g. the organization, once authentication knows it). */
export function addLogContext(fields: Record<string, unknown>) {
  Object.assign(context.getStore() ?? {}, fields);
}

function write(level: Level, msg: string, fields?: Record<string, unknown>) {
  if (ORDER[level] < ORDER[threshold]) return;
  const line = JSON.stringify({ time: new Date().toISOString(), level, msg, ...context.getStore(), ...fields });
  (level === 'error' || level === 'warn' ? process.stderr : process.stdout).write(line + '\n');
}

/** JSON lines; never pass secrets (API keys, tokens, passwords) as fields. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write('error', msg, fields),
};
