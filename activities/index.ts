import type { ActivityDeps } from './deps.ts';
import { enrichmentActivities } from './enrichment.ts';
import { finderActivities } from './finder.ts';
import { maintenanceActivities } from './maintenance.ts';
import { scrapeActivities } from './scrape.ts';
import { verificationActivities } from './verification.ts';
import { singleCheckActivities } from './single-check.ts';
import { webhookActivities } from './webhooks.ts';

export type { ActivityDeps } from './deps.ts';

/** One factory per job kind is spread in here; each workflow sees only its kind's factory type. */
export function createActivities(deps: ActivityDeps) {
  return { ...scrapeActivities(deps), ...verificationActivities(deps), ...enrichmentActivities(deps), ...finderActivities(deps), ...singleCheckActivities(deps), ...webhookActivities(deps), ...maintenanceActivities(deps) };
}
