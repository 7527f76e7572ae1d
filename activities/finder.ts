import { findEmail, type FinderDeps } from '../src/finder/engine.ts';
import type { FindStep, FindStepInput, SettleFindInput } from '../src/finder/messages.ts';
import { settleFind } from '../src/finder/engine-settle.ts';
import type { ActivityDeps } from './deps.ts';

/** Finder activities, sharing the worker's prober (its per-host limits) and directory (its shared pace). */
export function finderActivities(deps: ActivityDeps) {
  const finder = finderDeps(deps);
  return {
    /** One pass: a later one (`retry`) asks each deferred candidate once, as greylisting expects. */
    findEmailStep(input: FindStepInput): Promise<FindStep> {
      return findEmail(finder, { ...input, seed: input.findId, attempts: 1 });
    },

    /** Charge (Valid only), learn and record, once however often it runs. */
    settleEmailFind(input: SettleFindInput) {
      return settleFind(deps.orm.em.fork(), input, input.step);
    },
  };
}

export const finderDeps = (deps: ActivityDeps): FinderDeps => ({ orm: deps.orm, prober: deps.prober, directory: deps.directory, config: deps.config });

export type FinderActivities = ReturnType<typeof finderActivities>;
