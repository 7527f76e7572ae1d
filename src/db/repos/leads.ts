import type { EntityManager } from '@mikro-orm/postgresql';
import type { EnrichmentField } from '../../domain/enrichment.ts';
import type { LeadSource } from '../../domain/lead.ts';
import { notFound } from '../../errors.ts';
import type { LeadInput } from '../../domain/lead-input.ts';
import { type LeadKeys, type OnDuplicate, emailKeyOf, splitDuplicates } from '../../domain/lead-duplicates.ts';
import { LEAD_INPUT_FIELDS, snakeCase } from '../../domain/lead.ts';
import { newId } from '../entities/common.ts';
import { Lead } from '../entities/index.ts';
import type { ILead } from '../entities/lead.ts';
import { kysely } from '../kysely.ts';
import { sql } from 'kysely';
import { runSql } from '../run-sql.ts';

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
  const ids: string[] = [];
  for (let i = 0; i < inputs.length; i += INSERT_CHUNK) {
    // A chunk's rows at a time: an import's 50,000 would otherwise all live until the last statement.
    const rows = inputs.slice(i, i + INSERT_CHUNK).map((input) => ({
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
    await sql`insert into lead (id, organization_id, list_id, first_name, last_name, title, company, company_domain, email, network_url,
                                work_email, personal_email, phone, source, created_at, updated_at)
       select r.id, ${organizationId}, ${listId}, r.first_name, r.last_name, r.title, r.company, r.company_domain, r.email, r.network_url,
              r.work_email, r.personal_email, r.phone, ${source}, now(), now()
       from json_to_recordset(${JSON.stringify(rows)}::json)
         as r(id uuid, first_name text, last_name text, title text, company text, company_domain text, email text, network_url text,
              work_email text, personal_email text, phone text)`.execute(em.getKysely());
    for (const row of rows) ids.push(row.id);
  }
  return ids;
}

/**
 * Serializes the adds and imports into one list until the transaction ends, so two of them running at once cannot
 * both insert the same lead (each sees the other's rows once it gets the lock).
 */
export async function lockListForAdding(tx: EntityManager, listId: string): Promise<void> {
  await kysely(tx)
    .selectNoFrom((eb) => eb.fn('pg_advisory_xact_lock', [eb.fn('hashtextextended', [eb.val(`lead-add:${listId}`), sql.lit(0)])]).as('locked'))
    .execute();
}

/**
 * The list's leads whose email (case-insensitively) or profile URL is among `inputs`': two index lookups a statement
 * of INSERT_CHUNK inputs. Plain SQL, not the typed builder: its row mapping walks every property of the entity for
 * each row, 40 µs a row, seconds for an import whose rows the list holds already.
 */
export async function leadsSharingKeys(tx: EntityManager, listId: string, inputs: readonly LeadInput[]): Promise<Array<LeadKeys & { id: string }>> {
  const found: Array<LeadKeys & { id: string }> = [];
  for (let i = 0; i < inputs.length; i += INSERT_CHUNK) {
    const chunk = inputs.slice(i, i + INSERT_CHUNK);
    const emailKeys = [...new Set(chunk.map((input) => emailKeyOf(input.email)).filter((key) => key !== null))];
    const urls = [...new Set(chunk.map((input) => input.networkUrl).filter((url) => url !== null))];
    if (emailKeys.length === 0 && urls.length === 0) continue;
    const { rows } = await sql<LeadKeys & { id: string }>`
      select id, email_key as "emailKey", network_url as "networkUrl" from lead
       where list_id = ${listId} and (email_key = any(${emailKeys}::text[]) or network_url = any(${urls}::text[]))`.execute(tx.getKysely());
    found.push(...rows);
  }
  return found;
}

const LEAD_INPUT_COLUMNS = LEAD_INPUT_FIELDS.map(snakeCase);

/**
 * `onDuplicate: "update"`: each lead's empty fields take the given values; fields that hold a value keep it. Raw SQL:
 * one update joined to the batch, a JSON recordset of each lead's values. Parameters: the fills as JSON.
 */
export const FILL_EMPTY_LEAD_FIELDS_SQL = `
  update lead as l set ${LEAD_INPUT_COLUMNS.map((column) => `${column} = coalesce(l.${column}, v.${column})`).join(', ')}, updated_at = now()
    from jsonb_to_recordset(?::jsonb) as v(id uuid, ${LEAD_INPUT_COLUMNS.map((column) => `${column} varchar`).join(', ')})
   where l.id = v.id`;

export async function fillEmptyLeadFields(tx: EntityManager, fills: ReadonlyMap<string, Partial<LeadInput>>): Promise<void> {
  const payload = [...fills].map(([id, fill]) => ({ id, ...Object.fromEntries(LEAD_INPUT_FIELDS.map((field, i) => [LEAD_INPUT_COLUMNS[i], fill[field] ?? null])) }));
  for (let i = 0; i < payload.length; i += INSERT_CHUNK) await runSql(tx, FILL_EMPTY_LEAD_FIELDS_SQL, [JSON.stringify(payload.slice(i, i + INSERT_CHUNK))]);
}

/**
 * An add or a whole import, inside the caller's transaction (which holds `lockListForAdding`): inserts the leads new
 * to the list, skips or fills (`update`) the ones it already holds or `inputs` holds earlier. Every lookup runs before
 * the first insert, against the list as it was: the planner does not know this transaction's rows, and planned the
 * lookups of a list growing under them for the list it knew (40,000 rows imported into a new list in a replay:
 * 361–426 ms of lookups between the inserts, 62 ms all before them). Answers the new leads' ids and the 0-based
 * positions of the duplicates in `inputs`.
 */
export async function addNewLeads(
  tx: EntityManager,
  target: { organizationId: string; listId: string; source: LeadSource; onDuplicate: OnDuplicate },
  inputs: LeadInput[],
): Promise<{ ids: string[]; duplicates: number[] }> {
  const split = splitDuplicates(inputs, await leadsSharingKeys(tx, target.listId, inputs), target.onDuplicate);
  const ids = await insertLeads(tx, target.organizationId, target.listId, split.fresh, target.source);
  await fillEmptyLeadFields(tx, split.fills);
  return { ids, duplicates: split.duplicates };
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

/** SET terms (of `lead as l` and a source `v` with `work_email`): an empty email takes the verified work email found. */
const FOUND_EMAIL_BECOMES_EMAIL = `
       email = coalesce(l.email, v.work_email),
       email_status = case when l.email is null and v.work_email is not null then 'Valid' else l.email_status end,
       email_verified_at = case when l.email is null and v.work_email is not null then now() else l.email_verified_at end`;

/**
 * Single enrichment has no lead: the organization's leads holding the profile URL and no email take the verified
 * work email it found (as their work email too), as bulk enrichment's leads do. Raw SQL: it shares
 * FOUND_EMAIL_BECOMES_EMAIL with the batch write below. Parameters: the work email, the organization, the URL.
 */
export const FILL_EMAILS_OF_PROFILE_SQL = `
  update lead as l set work_email = coalesce(l.work_email, v.work_email), ${FOUND_EMAIL_BECOMES_EMAIL}, updated_at = now()
    from (select ?::varchar as work_email) as v
   where l.organization_id = ? and l.network_url = ? and l.email is null`;

export async function fillEmailsOfProfile(tx: EntityManager, organizationId: string, networkUrl: string, workEmail: string): Promise<void> {
  await runSql(tx, FILL_EMAILS_OF_PROFILE_SQL, [workEmail, organizationId, networkUrl]);
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
 * Enrichment's delivered data onto the leads, one statement; fields not delivered keep their value. A delivered work
 * email is verified (CONTRACT §5), so a lead without an email takes it as its email, `Valid` (CONTRACT §15): the list
 * can be verified and exported. Raw SQL: one update joined to the batch, a JSON recordset of each lead's values.
 * Parameters: the writes as JSON.
 */
export const WRITE_ENRICHED_VALUES_SQL = `
  update lead as l set
    work_email = coalesce(v.work_email, l.work_email),
    personal_email = coalesce(v.personal_email, l.personal_email),
    phone = coalesce(v.phone, l.phone),
    ${FOUND_EMAIL_BECOMES_EMAIL},
    enriched_at = now(), updated_at = now()
  from jsonb_to_recordset(?::jsonb) as v(id uuid, work_email varchar, personal_email varchar, phone varchar)
  where l.id = v.id`;

export async function writeEnrichedValues(
  tx: EntityManager,
  writes: ReadonlyArray<{ id: string; values: Partial<Record<EnrichmentField, string>> }>,
): Promise<void> {
  if (writes.length === 0) return;
  const payload = writes.map((w) => ({ id: w.id, work_email: w.values.workEmail ?? null, personal_email: w.values.personalEmail ?? null, phone: w.values.phone ?? null }));
  await runSql(tx, WRITE_ENRICHED_VALUES_SQL, [JSON.stringify(payload)]);
}
