import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BULK_STATUSES, ENRICHMENT_FIELDS, STOP_REASONS } from '../../domain/enrichment.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from './common.ts';
import { List } from './list.ts';
import { Organization } from './organization.ts';

/** A bulk enrichment over one list; counters move only in the transaction that commits a batch. */
export const EnrichmentJob = defineEntity({
  name: 'EnrichmentJob',
  indexes: [{ properties: ['organization', 'id'] }],
  // Live progress (CONTRACT §9.4): every committed change reaches the API processes streaming the job (job-notifications.ts),
  // naming the stage it leaves the job in, so a stream held back by its progress pace still shows a new stage at once.
  triggers: [
    {
      name: 'enrichment_job_notify',
      timing: 'after',
      events: ['update'],
      forEach: 'row',
      body: `perform pg_notify('job_events', 'enrichment:' || new.id || ':' || new.status); return null;`,
    },
  ],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    list: () => p.manyToOne(List).deleteRule('cascade'),
    status: p.enum(BULK_STATUSES),
    fields: p.enum(ENRICHMENT_FIELDS).array(),
    totalLeads: p.integer(),
    processedLeads: p.integer().default(0),
    successCount: p.integer().default(0),
    failedCount: p.integer().default(0),
    skippedCount: p.integer().default(0),
    creditsUsed: p.integer().default(0),
    estimatedCredits: p.integer(),
    stopReason: p.enum(STOP_REASONS).nullable(),
    failureReason: p.text().nullable(),
    /** The last lead (by id) whose batch is committed; the next batch starts after it. */
    cursor: p.uuid().nullable(),
    /** The list's newest lead when the job was created: leads added later are not part of the job. */
    lastLeadId: p.uuid().nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
    completedAt: p.datetime().nullable(),
  },
});
export type IEnrichmentJob = InferEntity<typeof EnrichmentJob>;
