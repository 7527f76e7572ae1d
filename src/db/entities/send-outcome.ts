import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { SEND_OUTCOMES, BOUNCE_TYPES } from '../../domain/outcomes.ts';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';

/**
 * What happened when the organization sent to an address (CONTRACT §12): one row per address, a later
 * report replacing the earlier. Later Catch-All scores and the calibration read it.
 */
export const SendOutcome = defineEntity({
  name: 'SendOutcome',
  uniques: [{ properties: ['organization', 'email'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    /** Lower-cased, as verification results hold it. */
    email: p.string().length(254),
    outcome: p.enum(SEND_OUTCOMES),
    bounceType: p.enum(BOUNCE_TYPES).nullable(),
    /** When it happened (as reported; the report's time when not given). */
    at: p.datetime(),
    createdAt: createdAtProperty(),
  },
});
export type ISendOutcome = InferEntity<typeof SendOutcome>;
