import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { LEAD_EMAIL_DOMAIN_SQL } from '../db/entities/lead.ts';

/** The domain of a stored address, as the lead index computes it from email_key. */
const STORED_DOMAIN_SQL = LEAD_EMAIL_DOMAIN_SQL.replaceAll('email_key', 's.email');

/**
 * The lead half of every statement that makes results final (SMTP batches, settled deferrals,
 * provider batches): the rows its `stored` CTE returns (email, result, checked_at) onto the job's
 * list's leads holding those addresses (`email_key` = lower(email)), in the same statement, so a
 * job is done when its last result is stored and no step at the end grows with the job or the
 * table. Two CTEs (`matched`, `leads`) that follow `stored`. Each stored address is looked up alone
 * (a LATERAL kept apart by `offset 0`) with every column of both lead indexes that start with list_id
 * and end with email_key (its domain too, so either index bounds the lookup to the address), and the
 * leads are updated by primary key, joined on the id alone (an added `id = any(array(…matched))` became a second
 * index condition whose array every per-row lookup sorted again: 18 % of PostgreSQL's CPU in a 10,000-address job).
 * That holds while the planner knows the list: when its statistics
 * say the list holds one lead, every list_id index ties with these two, and one that reads the whole
 * list may win (`leadsMisjudged`, below, has the list analyzed beside the first slices for that reason).
 * Parameter: the job id.
 */
export const WRITE_BATCH_TO_LEADS = `matched as (
       select x.id, s.result, s.checked_at
       from stored s cross join lateral (
         select id from lead x where x.list_id = (select list_id from verification_job where id = ?)
           and ${LEAD_EMAIL_DOMAIN_SQL} = ${STORED_DOMAIN_SQL} and x.email_key = s.email offset 0
       ) x
       where s.result is not null
     ), leads as (
       update lead l set email_status = m.result, email_verified_at = m.checked_at, updated_at = clock_timestamp()
       from matched m
       where l.id = m.id
       returning 1
     )`;

/**
 * A job with fewer addresses never has the table analyzed: reading its whole list for each address (below) costs
 * it less than an analyze of the lead table, which also waits for an autovacuum of the table to be cancelled (a
 * second, `deadlock_timeout`) while a large list is being written.
 */
export const LEAST_ADDRESSES_TO_ANALYZE = 1_000;

/**
 * Whether the planner misjudges the list by more than ten times against the job's `addresses`. Every batch's
 * write-back above looks its addresses up by (list_id, email_key); when the statistics have never seen the list
 * (imported a moment ago, before autovacuum's analyze) the planner believes it holds one lead, and every index that
 * starts with list_id then costs the same as the right one: it took the (list_id, network_url) index and read the
 * whole list for each address (0.7 ms an address on a 10,000-lead list, 160–700 ms a batch). A misjudged list gets
 * list_id analyzed once (`analyzeListIds`), the one statistic it misjudges. The whole table's analyze took four times
 * as long where leads carry names, company, title and phone (183–202 ms against 42–45 ms on 310,000 leads).
 */
export async function leadsMisjudged(em: EntityManager, listId: string, addresses: number): Promise<boolean> {
  if (addresses < LEAST_ADDRESSES_TO_ANALYZE) return false;
  const { rows } = await sql<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>`
    explain (format json) select 1 from lead where list_id = ${listId}`.execute(em.getKysely());
  const believed = rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0;
  return believed * 10 < addresses;
}

export async function analyzeListIds(em: EntityManager): Promise<void> {
  await sql`analyze lead (list_id)`.execute(em.getKysely());
}
