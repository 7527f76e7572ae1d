/**
 * The integrations' page queries, read straight into their JSON shape: one named (prepared) statement per
 * page, rows and total together (the window count is computed before LIMIT), timestamps rendered by the
 * database, no entity hydration. Only a page past the end needs a second query for the total.
 */
import type { Pool } from 'pg';
import type { EmailResult } from '../domain/lead.ts';

/** ISO 8601 in UTC with milliseconds, exactly as `Date#toISOString` writes it. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export interface Page<T> {
  rows: T[];
  total: number;
}

async function page<T>(pool: Pool, name: string, text: string, countText: string, values: unknown[]): Promise<Page<T>> {
  const { rows } = await pool.query<T & { total: string }>({ name, text, values });
  if (rows.length === 0) {
    const counted = await pool.query<{ total: string }>({ name: `${name}_count`, text: countText, values: values.slice(0, -2) });
    return { rows: [], total: Number(counted.rows[0]!.total) };
  }
  // Copies rather than `delete row.total`: deleting a property turns an object into a slow dictionary,
  // and JSON.stringify of those cost more than the copies.
  return { rows: rows.map(({ total: _, ...row }) => row as T), total: Number(rows[0]!.total) };
}

export interface ListRow {
  id: string;
  name: string;
  description: string | null;
  leadCount: number;
  createdAt: string;
  updatedAt: string;
}

const LISTS = `
select l.id, l.name, l.description,
       (select count(*) from lead where lead.list_id = l.id)::int as "leadCount",
       ${iso('l.created_at')} as "createdAt", ${iso('l.updated_at')} as "updatedAt",
       count(*) over () as total
  from lead_list l
 where l.organization_id = $1
 order by l.id desc
 limit $2 offset $3`;

/** A page of an organization's lists, newest first, with their lead counts. */
export function pageListRows(pool: Pool, organizationId: string, offset: number, limit: number): Promise<Page<ListRow>> {
  return page(pool, 'list_page', LISTS, `select count(*) as total from lead_list where organization_id = $1`, [organizationId, limit, offset]);
}

export interface LeadFilter {
  listId?: string;
  emailStatus?: EmailResult;
  email?: string;
  phone?: string;
  /** Case-insensitive substring of the name, title, company, domain or any email or phone of the lead. */
  search?: string;
}

/** The columns `search` looks in (the dashboard's leads table); a list's leads are few enough to scan. */
const SEARCHED = ['first_name', 'last_name', 'title', 'company', 'company_domain', 'email', 'work_email', 'personal_email', 'phone'];
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

const LEAD_COLUMNS = `id, list_id as "listId", first_name as "firstName", last_name as "lastName", title, company,
       company_domain as "companyDomain", email, network_url as "networkUrl", work_email as "workEmail",
       personal_email as "personalEmail", phone, email_status as "emailStatus",
       ${iso('email_verified_at')} as "emailVerifiedAt", source, ${iso('enriched_at')} as "enrichedAt",
       ${iso('created_at')} as "createdAt", ${iso('updated_at')} as "updatedAt"`;

const FILTERS = [
  ['listId', 'list_id'],
  ['emailStatus', 'email_status'],
  ['email', 'email'],
  ['phone', 'phone'],
] as const;

/** The filter as conditions on `lead` ($1 the organization), their values, and a statement name unique to the combination. */
function leadConditions(organizationId: string, filter: LeadFilter) {
  const where = ['organization_id = $1'];
  const values: unknown[] = [organizationId];
  let name = '';
  for (const [field, column] of FILTERS) {
    const value = filter[field];
    if (value === undefined) continue;
    values.push(value);
    where.push(`${column} = $${values.length}`);
    name += `_${field}`;
  }
  if (filter.search !== undefined) {
    values.push(likePattern(filter.search));
    where.push(`(${SEARCHED.map((column) => `${column} ilike $${values.length}`).join(' or ')})`);
    name += '_search';
  }
  return { conditions: where.join(' and '), values, name };
}

/**
 * A page of an organization's leads, oldest first. Each combination of filters is its own statement (32 at
 * most), so every one is planned for the index it can use rather than one generic plan with optional terms.
 */
export function pageLeadRows<T>(pool: Pool, organizationId: string, filter: LeadFilter, offset: number, limit: number): Promise<Page<T>> {
  const { conditions, values, name } = leadConditions(organizationId, filter);
  values.push(limit, offset);
  const text = `select ${LEAD_COLUMNS}, count(*) over () as total from lead where ${conditions} order by id limit $${values.length - 1} offset $${values.length}`;
  return page(pool, `lead_page${name}`, text, `select count(*) as total from lead where ${conditions}`, values);
}

/**
 * The leads the filter keeps, oldest first, read `pageSize` at a time after the last id read (keyset: each page one
 * index range, however deep), so a list of any size streams in bounded memory. A page is read when the consumer
 * asks for it.
 */
export async function* leadRowsByPage<T extends { id: string }>(pool: Pool, organizationId: string, filter: LeadFilter, pageSize: number): AsyncGenerator<T[]> {
  const { conditions, values, name } = leadConditions(organizationId, filter);
  const after = values.length + 1;
  const text = `select ${LEAD_COLUMNS} from lead where ${conditions} and id > $${after} order by id limit $${after + 1}`;
  let last = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await pool.query<T>({ name: `lead_export${name}`, text, values: [...values, last, pageSize] });
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < pageSize) return;
    last = rows[rows.length - 1]!.id;
  }
}
