import { checkSingleAddress } from '../src/verify/engine.ts';
import type { CheckRecord, SingleCheckInput } from '../src/verify/messages.ts';
import type { ActivityDeps } from './deps.ts';

/** `POST /api/external/verify` runs here so that it shares the worker's prober and its connection limits. */
export function verifySingleActivities(deps: ActivityDeps) {
  return {
    async verifySingleAddress(input: SingleCheckInput): Promise<CheckRecord> {
      return checkSingleAddress(
        { orm: deps.orm, prober: deps.prober, domainCacheTtlMs: deps.config.VERIFY_DOMAIN_CACHE_TTL },
        input,
      );
    },
  };
}

export type VerifySingleActivities = ReturnType<typeof verifySingleActivities>;
