import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { SCRAPE_INPUT_TYPES, SCRAPE_JOB_STATUSES } from '../../domain/scrape.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from './common.ts';
import { List } from './list.ts';
import { Organization } from './organization.ts';

export const ScrapeJob = defineEntity({
  name: 'ScrapeJob',
  indexes: [{ properties: ['organization', 'id'] }, { properties: ['organization', 'status', 'id'] }],
  // Live progress (CONTRACT §9.4): every committed change reaches the API processes streaming the job (job-notifications.ts),
  // naming the stage it leaves the job in, so a stream held back by its progress pace still shows a new stage at once.
  triggers: [
    {
      name: 'scrape_job_notify',
      timing: 'after',
      events: ['update'],
      forEach: 'row',
      body: `perform pg_notify('job_events', 'scrape:' || new.id || ':' || new.status); return null;`,
    },
  ],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string().length(200),
    inputType: p.enum(SCRAPE_INPUT_TYPES),
    status: p.enum(SCRAPE_JOB_STATUSES),
    totalItems: p.integer(),
    /** Moved only in the statement that settles an item, so it counts every item exactly once. */
    completedItems: p.integer().default(0),
    foundItems: p.integer().default(0),
    /**
     * Bumped by every pause and resume; the signals carry it, so the workflow applies the latest
     * decision whatever order the signals and its own status reads arrive in.
     */
    controlVersion: p.integer().default(0),
    failureReason: p.text().nullable(),
    /** The list the first sync created; later syncs add to it. */
    list: () => p.manyToOne(List).deleteRule('set null').nullable(),
    completedAt: p.datetime().nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
});
export type IScrapeJob = InferEntity<typeof ScrapeJob>;
