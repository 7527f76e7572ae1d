import { deleteExpiredKeys } from '../src/idempotency/repository.ts';
import { deleteExpiredCache } from '../src/single-check/repository.ts';
import { log } from '../src/log.ts';
import type { ActivityDeps } from './deps.ts';

/** Housekeeping of rows that only ever count for a while: idempotency keys (24 h) and the verify caches (their TTLs). */
export function maintenanceActivities({ config, orm }: ActivityDeps) {
  return {
    async deleteExpiredRows(): Promise<{ idempotencyKeys: number; verifyChecks: number; domainFacts: number }> {
      const em = orm.em.fork();
      const idempotencyKeys = await deleteExpiredKeys(em);
      const { checks, domainFacts } = await deleteExpiredCache(em, { resultMs: config.VERIFY_RESULT_CACHE_TTL, domainMs: config.VERIFY_DOMAIN_CACHE_TTL });
      const deleted = { idempotencyKeys, verifyChecks: checks, domainFacts };
      if (idempotencyKeys + checks + domainFacts > 0) log.info('expired rows deleted', deleted);
      return deleted;
    },
  };
}

export type MaintenanceActivities = ReturnType<typeof maintenanceActivities>;
