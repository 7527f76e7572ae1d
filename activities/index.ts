import type { Config } from '../src/config.ts';
import type { Orm } from '../src/db/orm.ts';

/** Everything activities may touch; built once per worker process and closed over by the factories. */
export interface ActivityDeps {
  config: Config;
  orm: Orm;
}

/** One factory per job kind is spread in here; workflows see only the type. */
export function createActivities(_deps: ActivityDeps) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
