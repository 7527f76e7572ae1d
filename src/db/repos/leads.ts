import type { EntityManager } from '@mikro-orm/postgresql';
import type { EnrichmentField } from '../../domain/enrichment.ts';
import type { LeadSource } from '../../domain/lead.ts';
import { notFound } from '../../errors.ts';
import type { LeadInput } from '../../domain/lead-input.ts';
import { newId } from '../entities/common.ts';
import { Lead } from '../entities/index.ts';
import type { ILead } from '../entities/lead.ts';
import { kysely } from '../kysely.ts';
import { sql } from 'kysely';

const INSERT_CHUNK = 1000;

/**
 * One statement per chunk, the rows as one JSON parameter (no unit of work): imports of tens of thousands of rows
 * stay fast and flat. Kysely sends real bind parameters; em.insertMany() would inline every value into the SQL
 * text, which allocated about 12 MB per thousand leads (a 10 MiB import: 600 MB of garbage for the collector).
 */
export async function insertLeads(
  em: EntityManager,
  organizationId: string,
  listId: string,
  inputs: LeadInput[],
  source: LeadSource,
): Promise<string[]> {
  const rows = inputs.map((input) => ({
    id: newId(),
    first_name: input.firstName,
    last_name: input.lastName,
    title: input.title,
    company: input.company,
    company_domain: input.companyDomain,
    email: input.email,
    network_url: input.networkUrl,
    work_email: input.workEmail,
    personal_email: input.personalEmail,
    phone: input.phone,
  }));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await sql`insert into lead (id, organization_id, list_id, first_name, last_name, title, company, company_domain, email, network_url,
                                work_email, personal_email, phone, source, created_at, updated_at)
       select r.id, ${organizationId}, ${listId}, r.first_name, r.last_name, r.title, r.company, r.company_domain, r.email, r.network_url,
              r.work_email, r.personal_email, r.phone, ${source}, now(), now()
       from json_to_recordset(${JSON.stringify(rows.slice(i, i + INSERT_CHUNK))}::json)
         as r(id uuid, first_name text, last_name text, title text, company text, company_domain text, email text, network_url text,
              work_email text, personal_email text, phone text)`.execute(em.getKysely());
  }
  return rows.map((r) => r.id);
}

export function findLeadsByIds(em: EntityManager, ids: string[]) {
  return em.find(Lead, { id: { $in: ids } }, { orderBy: { id: 'asc' } });
}

export async function getLead(em: EntityManager, organizationId: string, leadId: string): Promise<ILead> {
  const lead = await em.findOne(Lead, { id: leadId, organization: organizationId });
  if (!lead) throw notFound('Lead');
  return lead;
}

export async function updateLead(em: EntityManager, lead: ILead, input: Partial<LeadInput>) {
  for (const [key, value] of Object.entries(input) as Array<[keyof LeadInput, string | null | undefined]>) {
    if (value !== undefined) lead[key] = value;
  }
  await em.flush();
  return lead;
}

export async function deleteLead(em: EntityManager, lead: ILead) {
  await em.nativeDelete(Lead, { id: lead.id });
}

const ENRICHMENT_FACTS = ['id', 'networkUrl', 'firstName', 'lastName', 'title', 'company', 'companyDomain'] as const;

/** The person facts of a bulk-enrichment batch: up to `limit` leads of a list after `after`, up to `last`. */
export interface EnrichmentLeadRow {
  id: string;
  networkUrl: string | null;
  firstName: string | null;
  lastName: string | null;
  title: string | null;
  company: string | null;
  companyDomain: string | null;
}

export function leadsForEnrichment(
  em: EntityManager,
  range: { listId: string; after: string | null; last: string; limit: number },
): Promise<EnrichmentLeadRow[]> {
  return kysely(em)
    .selectFrom('lead')
    .select(ENRICHMENT_FACTS)
    .where('list', '=', range.listId)
    .where('id', '<=', range.last)
    .$if(range.after !== null, (q) => q.where('id', '>', range.after!))
    .orderBy('id')
    .limit(range.limit)
    .execute();
}

/**
 * Enrichment's delivered data onto the leads, one statement; fields not delivered keep their value. Kept as SQL:
 * an update from a VALUES list reads better than its builder form.
 */
export async function writeEnrichedValues(
  tx: EntityManager,
  writes: ReadonlyArray<{ id: string; values: Partial<Record<EnrichmentField, string>> }>,
): Promise<void> {
  if (writes.length === 0) return;
  const rows = writes.map(() => '(?::uuid, ?::varchar, ?::varchar, ?::varchar)').join(', ');
  await tx.execute(
    `update lead as l set
       work_email = coalesce(v.work_email, l.work_email),
       personal_email = coalesce(v.personal_email, l.personal_email),
       phone = coalesce(v.phone, l.phone),
       enriched_at = now(), updated_at = now()
     from (values ${rows}) as v(id, work_email, personal_email, phone)
     where l.id = v.id`,
    writes.flatMap((w) => [w.id, w.values.workEmail ?? null, w.values.personalEmail ?? null, w.values.phone ?? null]),
  );
}
