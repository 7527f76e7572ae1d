import type { ActivityDeps } from './deps.ts';

export type { ActivityDeps } from './deps.ts';

/** One factory per job kind is spread in here; workflows see only the type. */
export function createActivities(_deps: ActivityDeps) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
