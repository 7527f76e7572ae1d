/**
 * A job's snapshot of its list: the distinct addresses (case-insensitive) it checks, written in ranges of domains so
 * the SMTP stage starts on the first range while the rest are still being written (a 1,000,000-address list took
 * 12–19 s as one statement before the first address could be asked). Creation counts the list's domains and writes
 * the first range; `writeNextSnapshotRange` writes each next one. The statements are raw SQL because they are
 * set-based: one statement per range, never a round trip per address.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { kysely } from '../db/kysely.ts';
import { LEAD_EMAIL_DOMAIN_SQL } from '../db/entities/lead.ts';
import { JobGoneError } from '../errors.ts';
import { runSql } from '../db/run-sql.ts';

/**
 * A UUIDv7 computed by PostgreSQL (15 has no uuidv7()): a random v4 whose first 48 bits become the
 * Unix time in milliseconds and whose version nibble becomes 7, so set-based inserts keep the
 * time-ordered keys every other table gets from the application.
 */
export const UUID_V7_SQL = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/** Addresses in the range written with the job, before its creation answers: what the first sessions take. */
export const FIRST_RANGE_ADDRESSES = 5_000;
/** The most addresses one later range holds; each range doubles the addresses written so far up to this. */
export const MAX_RANGE_ADDRESSES = 100_000;

/**
 * The job's domains with their distinct address counts, numbered largest first (they take longest, so they
 * start first), in one index-only scan of the list in domain order (`lead_list_id_email_domain_index`):
 * 0.3 s at 1,000,000 addresses where grouping the whole list by a computed domain took 1.8 s.
 */
export const COUNT_DOMAINS_SQL = `insert into verification_domain (id, job_id, domain, seq, email_count)
  select ${UUID_V7_SQL}, ?, domain, row_number() over (order by count(*) desc, domain), count(*)
  from (select distinct ${LEAD_EMAIL_DOMAIN_SQL} as domain, email_key from lead where list_id = ? and email_key <> '') a
  group by domain
  returning email_count`;

/**
 * Where the range after `afterSeq` ends: as many domains (in seq order) as fit the budget, at least one.
 * Parameters: job, afterSeq, afterSeq, most, least, afterSeq.
 */
export const RANGE_END_SQL = `with r as (select seq, sum(email_count) over (order by seq) as cum from verification_domain where job_id = ?),
       b as (select coalesce(max(cum) filter (where seq <= ?), 0) as before from r)
  select coalesce(max(r.seq) filter (where r.seq > ? and r.cum - b.before <= least(?::bigint, greatest(?::bigint, 2 * b.before))), ? + 1)::int as to_seq,
         coalesce(max(r.seq), 0)::int as last_seq
  from r, b`;

/**
 * The addresses of the domains numbered afterSeq+1..toSeq, one index range of the list per domain (LATERAL, so the
 * plan stays a lookup per domain whatever the statistics say). Row ids stay UUIDv7 and unique at a fraction of the
 * cost of one per row (2 s at 1,000,000): the statement draws one, keeps its first 28 characters (time, version,
 * variant and 42 random bits) and counts its rows in the last 8 hex digits.
 * Parameters: list, job, afterSeq, toSeq.
 */
export const WRITE_RANGE_SQL = `insert into verification_result (id, job_id, email, domain)
  select (p.prefix || lpad(to_hex(row_number() over ()), 8, '0'))::uuid, d.job_id, k.email_key, d.domain
  from (select left((${UUID_V7_SQL})::text, 28) as prefix) p,
       verification_domain d
       cross join lateral (
         select distinct email_key from lead where list_id = ? and email_key <> '' and ${LEAD_EMAIL_DOMAIN_SQL} = d.domain
       ) k
  where d.job_id = ? and d.seq > ? and d.seq <= ?`;

/** A range's domains counted again from what was written: the list changed after the job counted it. */
export const RECOUNT_RANGE_SQL = `update verification_domain d
  set email_count = (select count(*) from verification_result r where r.job_id = d.job_id and r.domain = d.domain)
  where d.job_id = ? and d.seq > ? and d.seq <= ?`;

/**
 * Without statistics (a list just imported, not yet analyzed) the planner takes the list for a few hundred rows
 * and reads it through another index into an on-disk sort: 4.4 s at 1,000,000 addresses instead of one pass in
 * the domain index's order. Sorting and hashing are off for the rest of the creating transaction, which leaves
 * that pass; what follows it there (the first range) is index lookups that need neither.
 */
export const DOMAIN_ORDER_ONLY_SQL = `select set_config('enable_sort', 'off', true), set_config('enable_hashagg', 'off', true)`;

/** Counts the list's domains into the new job (inside its transaction); returns how many distinct addresses it holds. */
export async function countJobDomains(em: EntityManager, jobId: string, listId: string): Promise<number> {
  await runSql(em, DOMAIN_ORDER_ONLY_SQL);
  const rows = await runSql(em, COUNT_DOMAINS_SQL, [jobId, listId]);
  return rows.reduce((sum, r) => sum + Number(r.email_count), 0);
}

export interface WrittenRange {
  /** The last seq now written, null when every domain is. */
  snapshotSeq: number | null;
  /** Written minus counted: not 0 only when the list changed after the job counted it. */
  drift: number;
}

/**
 * Writes the range after `afterSeq`, `least` addresses when nothing is written yet, else twice what is, up to
 * MAX_RANGE_ADDRESSES. The domains stay those counted at creation; a range that finds more or fewer addresses than
 * counted (leads added or removed since) recounts its domains, so every count matches the rows.
 */
export async function writeSnapshotRange(
  em: EntityManager,
  jobId: string,
  listId: string,
  afterSeq: number,
  least: number,
): Promise<WrittenRange> {
  const [end] = await runSql(em, RANGE_END_SQL, [jobId, afterSeq, afterSeq, MAX_RANGE_ADDRESSES, least, afterSeq]);
  const toSeq = Number(end!.to_seq);
  const lastSeq = Number(end!.last_seq);
  const counted = await kysely(em)
    .selectFrom('verification_domain')
    .select((eb) => eb.cast<string>(eb.fn.coalesce(eb.fn.sum('emailCount'), sql.lit(0)), 'bigint').as('n'))
    .where('job', '=', jobId)
    .where('seq', '>', afterSeq)
    .where('seq', '<=', toSeq)
    .executeTakeFirst();
  const written = await runSql(em, WRITE_RANGE_SQL, [listId, jobId, afterSeq, toSeq]);
  const drift = written.affected - Number(counted!.n);
  if (drift !== 0) await runSql(em, RECOUNT_RANGE_SQL, [jobId, afterSeq, toSeq]);
  return { snapshotSeq: toSeq >= lastSeq ? null : toSeq, drift };
}

/**
 * Writes the job's next range, if any is left, in one transaction with the job's progress (the row locked, so a
 * retried activity never writes a range twice); returns the last seq written (every domain's, once done).
 */
export async function writeNextSnapshotRange(em: EntityManager, jobId: string): Promise<{ writtenSeq: number }> {
  return em.transactional(async (tx) => {
    const db = kysely(tx);
    const job = await db
      .selectFrom('verification_job')
      .select((eb) => [
        'list',
        'snapshotSeq',
        eb.selectFrom('verification_domain').select(sql<number>`count(*)::int`.as('n')).where('job', '=', jobId).as('domains'),
      ])
      .where('id', '=', jobId)
      .forUpdate()
      .executeTakeFirst();
    if (!job) throw new JobGoneError('verification', jobId);
    if (job.snapshotSeq === null) return { writtenSeq: Number(job.domains) };
    const range = await writeSnapshotRange(tx, jobId, job.list, Number(job.snapshotSeq), FIRST_RANGE_ADDRESSES);
    await db
      .updateTable('verification_job')
      .set((eb) => ({ snapshotSeq: range.snapshotSeq, totalEmails: eb('totalEmails', '+', range.drift) }))
      .where('id', '=', jobId)
      .execute();
    return { writtenSeq: range.snapshotSeq ?? Number(job.domains) };
  });
}
