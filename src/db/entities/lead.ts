import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EMAIL_RESULTS, LEAD_SOURCES } from '../../domain/lead.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from './common.ts';
import { List } from './list.ts';
import { Organization } from './organization.ts';

export const Lead = defineEntity({
  name: 'Lead',
  indexes: [
    { properties: ['list', 'id'] },
    { properties: ['organization', 'phone'] },
    { properties: ['organization', 'email'] },
    { properties: ['organization', 'networkUrl'] },
    // Verification write-back joins results on (list, key): an index lookup per result, whatever the statistics.
    { properties: ['list', 'emailKey'] },
    // Duplicate checks on add and import look a list's profile URLs up, whatever the list's size.
    { properties: ['list', 'networkUrl'] },
  ],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    list: () => p.manyToOne(List).deleteRule('cascade'),
    firstName: p.string().length(200).nullable(),
    lastName: p.string().length(200).nullable(),
    title: p.string().length(300).nullable(),
    company: p.string().length(300).nullable(),
    companyDomain: p.string().length(253).nullable(),
    email: p.string().length(254).nullable(),
    /** lower(email), kept by PostgreSQL: the key verification results are matched on. */
    emailKey: p.string().length(254).generated('(lower(email)) stored').nullable(),
    networkUrl: p.string().length(500).nullable(),
    workEmail: p.string().length(254).nullable(),
    personalEmail: p.string().length(254).nullable(),
    phone: p.string().length(50).nullable(),
    emailStatus: p.enum(EMAIL_RESULTS).nullable(),
    emailVerifiedAt: p.datetime().nullable(),
    source: p.enum(LEAD_SOURCES),
    enrichedAt: p.datetime().nullable(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
});
export type ILead = InferEntity<typeof Lead>;
