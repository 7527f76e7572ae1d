import type { Config } from '../src/config.ts';
import type { Orm } from '../src/db/orm.ts';
import { createSearchProvider, type ProfileSearchProvider } from '../src/providers/search/index.ts';

/**
 * Everything activities may touch, built once per worker process and closed over by the factories.
 * Long-lived clients (the SMTP prober with its process-wide limits, provider adapters with their rate
 * limiters) live here so every activity of the worker shares them.
 */
export interface ActivityDeps {
  config: Config;
  orm: Orm;
  /** Profile search for scrape jobs (SEARCH_PROVIDER); one instance, so one rate limit per worker. */
  search: ProfileSearchProvider;
}

/** The one place a worker's dependencies are wired from configuration (production and tests alike). */
export function createActivityDeps(config: Config, orm: Orm): ActivityDeps {
  return { config, orm, search: createSearchProvider(config) };
}
