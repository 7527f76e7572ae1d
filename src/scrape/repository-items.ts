import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { ScrapeItemStatus, ScrapeRowValues } from '../domain/scrape.ts';
import { newId } from '../db/entities/common.ts';
import { kysely } from '../db/kysely.ts';
import { runSql } from '../db/run-sql.ts';

/** An item as reads, downloads, searches and syncs see it. */
export interface ScrapeItemRow extends ScrapeRowValues {
  id: string;
  rowNumber: number;
  status: ScrapeItemStatus;
  networkUrl: string | null;
  error: string | null;
}

const COLUMNS = ['id', 'rowNumber', 'status', 'company', 'role', 'firstName', 'lastName', 'domain', 'networkUrl', 'error'] as const;

/*
 * Statements that take their rows as one JSON parameter (insert, settle, mark synced) stay SQL: a recordset
 * or a CTE chain reads better as SQL than in the builder, and one parameter keeps the statement's shape fixed.
 */

/** One statement per batch: the rows travel as one JSON parameter, not thousands of placeholders. */
export async function insertScrapeItems(
  em: EntityManager,
  jobId: string,
  rows: ReadonlyArray<ScrapeRowValues & { rowNumber: number }>,
): Promise<void> {
  if (rows.length === 0) return;
  const payload = rows.map((row) => ({
    id: newId(),
    row_number: row.rowNumber,
    company: row.company,
    role: row.role,
    first_name: row.firstName,
    last_name: row.lastName,
    domain: row.domain,
  }));
  // Kysely sends real bind parameters; em.execute() would inline (and escape) the whole JSON text into the SQL.
  await sql`insert into scrape_item (id, job_id, row_number, status, company, role, first_name, last_name, domain)
     select r.id, ${jobId}, r.row_number, 'pending', r.company, r.role, r.first_name, r.last_name, r.domain
     from json_to_recordset(${JSON.stringify(payload)}::json)
       as r(id uuid, row_number int, company text, role text, first_name text, last_name text, domain text)`.execute(em.getKysely());
}

/** The next pending items after a row, in row order: the workflow's cursor. */
export function pendingItemsAfter(em: EntityManager, jobId: string, afterRow: number, limit: number): Promise<ScrapeItemRow[]> {
  return kysely(em)
    .selectFrom('scrape_item')
    .select(COLUMNS)
    .where('job', '=', jobId)
    .where('rowNumber', '>', afterRow)
    .where('status', '=', 'pending')
    .orderBy('rowNumber')
    .limit(limit)
    .execute();
}

/** Keyset page of a job's items in row order (detail, download, sync). */
export function itemsAfter(
  em: EntityManager,
  jobId: string,
  afterRow: number,
  limit: number,
  filter: { foundOnly?: boolean; unsyncedOnly?: boolean } = {},
): Promise<ScrapeItemRow[]> {
  return kysely(em)
    .selectFrom('scrape_item')
    .select(COLUMNS)
    .where('job', '=', jobId)
    .where('rowNumber', '>', afterRow)
    .$if(filter.foundOnly === true, (q) => q.where('status', '=', 'found'))
    .$if(filter.unsyncedOnly === true, (q) => q.where('syncedAt', 'is', null))
    .orderBy('rowNumber')
    .limit(limit)
    .execute();
}

export interface ItemOutcome {
  itemId: string;
  status: Exclude<ScrapeItemStatus, 'pending'>;
  networkUrl?: string | null;
  error?: string | null;
  /** Values from the search result; they only fill what the row left empty. */
  filled?: Partial<Pick<ScrapeRowValues, 'firstName' | 'lastName' | 'role' | 'company'>>;
}

/**
 * Raw SQL: one statement over the batch as a JSON recordset, whose CTEs settle the items and count exactly
 * those into the job. Parameters: the outcomes as JSON, the job id twice.
 */
export const SETTLE_SCRAPE_ITEMS_SQL = `
  with outcome as (
    select * from json_to_recordset(?::json)
      as r(id uuid, status text, network_url text, error text, first_name text, last_name text, role text, company text)
  ), item as (
    update scrape_item i set status = o.status, network_url = o.network_url, error = o.error,
      first_name = coalesce(i.first_name, o.first_name), last_name = coalesce(i.last_name, o.last_name),
      role = coalesce(i.role, o.role), company = coalesce(i.company, o.company), processed_at = now()
    from outcome o
    where i.id = o.id and i.job_id = ? and i.status = 'pending'
    returning i.status
  ), counted as (
    update scrape_job set completed_items = completed_items + (select count(*) from item),
      found_items = found_items + (select count(*) from item where status = 'found'),
      updated_at = now()
    where id = ? and exists (select 1 from item)
    returning id
  )
  select count(*)::int as settled from item`;

/**
 * Settles items and moves the job's counters by exactly the items this statement changed, in one
 * statement. Only `pending` items change, so settling an item again (an activity retried after a crash)
 * changes nothing and counts nothing: this is what makes every item count exactly once.
 * Returns how many items this call settled.
 */
export async function settleScrapeItems(em: EntityManager, jobId: string, outcomes: readonly ItemOutcome[]): Promise<number> {
  if (outcomes.length === 0) return 0;
  const payload = outcomes.map((o) => ({
    id: o.itemId,
    status: o.status,
    network_url: o.networkUrl ?? null,
    error: o.error?.slice(0, 500) ?? null,
    first_name: o.filled?.firstName?.slice(0, 200) ?? null,
    last_name: o.filled?.lastName?.slice(0, 200) ?? null,
    role: o.filled?.role?.slice(0, 300) ?? null,
    company: o.filled?.company?.slice(0, 300) ?? null,
  }));
  const [row] = await runSql<{ settled: number }>(em, SETTLE_SCRAPE_ITEMS_SQL, [JSON.stringify(payload), jobId, jobId]);
  return row?.settled ?? 0;
}

/** Raw SQL: a batch write whose ids travel as one JSON parameter, however many. Parameters: the ids as JSON. */
export const MARK_ITEMS_SYNCED_SQL = `update scrape_item set synced_at = now() where id in (select value::uuid from json_array_elements_text(?::json))`;

export async function markItemsSynced(em: EntityManager, itemIds: string[]): Promise<void> {
  if (itemIds.length === 0) return;
  await runSql(em, MARK_ITEMS_SYNCED_SQL, [JSON.stringify(itemIds)]);
}

/** Forgets earlier syncs: their leads went with a deleted list. */
export async function clearItemsSynced(em: EntityManager, jobId: string): Promise<void> {
  await kysely(em).updateTable('scrape_item').set({ syncedAt: null }).where('job', '=', jobId).where('syncedAt', 'is not', null).execute();
}
