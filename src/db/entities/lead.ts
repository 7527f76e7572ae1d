import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EMAIL_RESULTS, LEAD_SOURCES } from '../../domain/lead.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from './common.ts';
import { List } from './list.ts';
import { Organization } from './organization.ts';

/**
 * The domain of a lead's address as verification groups it: the text after the last '@' of the lower-cased
 * address, '' without one. Queries that read a list's addresses by domain use this exact expression, so
 * PostgreSQL matches them to the index below.
 */
export const LEAD_EMAIL_DOMAIN_SQL = `(case when strpos(email_key, '@') > 0 then split_part(email_key, '@', -1) else '' end)`;

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
    // A verification job reads a list's distinct addresses domain by domain (its snapshot, written in ranges of
    // domains while the first are probed): an index-only scan in domain order, whatever the list's size.
    {
      name: 'lead_list_id_email_domain_index',
      expression: `create index "lead_list_id_email_domain_index" on "lead" ("list_id", ${LEAD_EMAIL_DOMAIN_SQL}, "email_key")`,
    },
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
