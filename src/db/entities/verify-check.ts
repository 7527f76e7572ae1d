import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EMAIL_RESULTS } from '../../domain/lead.ts';
import { idProperty } from './common.ts';
import { Organization } from './organization.ts';

/** One single-address check (`POST /api/external/verify`) of an organization; the recent ones answer repeats. */
export const VerifyCheck = defineEntity({
  name: 'VerifyCheck',
  // The second index serves the periodic cleanup, which deletes by age across organizations.
  indexes: [{ properties: ['organization', 'email', 'checkedAt'] }, { properties: ['checkedAt'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    /** Normalized as the leads hold it (domain lower-cased, ASCII). */
    email: p.string().length(254),
    domain: p.string().length(253),
    result: p.enum(EMAIL_RESULTS),
    reason: p.text().nullable(),
    mxHost: p.string().length(253).nullable(),
    isCatchAll: p.boolean().nullable(),
    /** The evidence behind the verdict (CONTRACT §10), as on a job's result. */
    smtpCode: p.integer().nullable(),
    enhancedCode: p.string().length(16).nullable(),
    attempts: p.integer().default(0),
    checkedAt: p.datetime(),
  },
});
export type IVerifyCheck = InferEntity<typeof VerifyCheck>;
