import { checkSingleAddress } from '../src/single-check/engine.ts';
import type { CheckRecord, SingleCheckInput } from '../src/single-check/messages.ts';
import type { ActivityDeps } from './deps.ts';

/** `POST /api/external/verify` runs here so that it shares the worker's prober and its connection limits. */
export function singleCheckActivities(deps: ActivityDeps) {
  return {
    // The activity type recorded in histories: renaming it would break the replay of running checks.
    async verifySingleAddress(input: SingleCheckInput): Promise<CheckRecord> {
      return checkSingleAddress(
        { orm: deps.orm, prober: deps.prober, domainCacheTtlMs: deps.config.VERIFY_DOMAIN_CACHE_TTL },
        input,
      );
    },
  };
}

export type SingleCheckActivities = ReturnType<typeof singleCheckActivities>;
