import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty } from './common.ts';
import { Organization } from './organization.ts';

/**
 * One find of the email finder (CONTRACT §14): created when it starts, answered when its workflow settles it. The
 * answer is written in the transaction that charges it, so a retried settle finds it and charges nothing again.
 */
export const EmailFind = defineEntity({
  name: 'EmailFind',
  indexes: [{ properties: ['organization', 'id'] }],
  properties: {
    /** The id of the find's workflow (`enrichment-<id>`) and the `findId` of a 202. */
    id: p.uuid().primary(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    firstName: p.string().length(200),
    lastName: p.string().length(200),
    domain: p.string().length(253),
    /** The answer as the route gives it; null until the find is settled. */
    answer: p.json<Record<string, unknown>>().nullable(),
    creditsUsed: p.integer().default(0),
    createdAt: createdAtProperty(),
    completedAt: p.datetime().nullable(),
  },
});
export type IEmailFind = InferEntity<typeof EmailFind>;
