/**
 * A job's snapshot of its list: the distinct addresses (case-insensitive) it checks, written in ranges of domains so
 * the SMTP stage starts on the first range while the rest are still being written (a 1,000,000-address list took
 * 12–19 s as one statement before the first address could be asked). Creation counts and writes the list's first
 * domains in domain order, about FIRST_RANGE_ADDRESSES of them, and commits; the workflow starts on them while the
 * creating request counts the rest (`countLaterDomains`: 0.5–1.5 s at 1,000,000 addresses, which had held the
 * first address back by as much); `writeNextSnapshotRange` writes each next range. The statements are raw SQL
 * because they are set-based: one statement per range, never a round trip per address.
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
 * A lead holds an address: its email key is not empty. Said on the domain index's columns (an email key that is
 * empty has the empty domain; a row comparison is an index condition), so a scan in domain order skips the leads
 * without one instead of reading them first.
 */
const HAS_ADDRESS_SQL = `(${LEAD_EMAIL_DOMAIN_SQL}, email_key) > ('', '')`;

/**
 * The domain where the job's first range ends: the one holding the list's `limit`-th address in domain order (the
 * first `limit` entries of `lead_list_id_email_domain_index`), and how many entries were read (fewer than `limit`:
 * the list ends there). Parameters: list, limit.
 */
export const FIRST_RANGE_END_SQL = `select max(domain) as last_domain, count(*)::int as entries
  from (select ${LEAD_EMAIL_DOMAIN_SQL} as domain from lead where list_id = ? and ${HAS_ADDRESS_SQL}
        order by ${LEAD_EMAIL_DOMAIN_SQL}, email_key limit ?) f`;

/**
 * Domains of the list with their distinct address counts, numbered after the job's last seq, largest first (they
 * take longest, so they start first), in one index-only scan of the list in domain order
 * (`lead_list_id_email_domain_index`): 0.3 s at 1,000,000 addresses where grouping the whole list by a computed
 * domain took 1.8 s. `bound` picks which of the list's domains.
 */
const countDomainsSql = (bound: string) => `insert into verification_domain (id, job_id, domain, seq, email_count)
  select ${UUID_V7_SQL}, ?, domain,
         (select coalesce(max(seq), 0) from verification_domain where job_id = ?) + row_number() over (order by count(*) desc, domain),
         count(*)
  from (select distinct ${LEAD_EMAIL_DOMAIN_SQL} as domain, email_key from lead where list_id = ? and ${bound}) a
  group by domain
  returning email_count`;

/** The list's domains up to the first range's last one, into a new job. Parameters: job, job, list, last domain. */
export const COUNT_FIRST_DOMAINS_SQL = countDomainsSql(`${HAS_ADDRESS_SQL} and ${LEAD_EMAIL_DOMAIN_SQL} <= ?`);

/** The list's domains after every one the job has counted. Parameters: job, job, list, job. */
export const COUNT_LATER_DOMAINS_SQL = countDomainsSql(
  `${LEAD_EMAIL_DOMAIN_SQL} > (select max(domain) from verification_domain where job_id = ?)`,
);

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
 * plan stays a lookup per domain whatever the statistics say; the domain index's, with sorting off: below). Row ids
 * stay UUIDv7 and unique at a fraction of the cost of one per row (2 s at 1,000,000): the statement draws one, keeps
 * its first 28 characters (time, version, variant and 42 random bits) and counts its rows in the last 8 hex digits.
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
 * the domain index's order. Sorting and hashing are off for the rest of each transaction that counts or writes a
 * range (the creating one, the request's count, each next range), which leaves that pass; the ranges' writes are
 * index lookups that need neither, in the domain index's order whatever the statistics say.
 */
export const DOMAIN_ORDER_ONLY_SQL = `select set_config('enable_sort', 'off', true), set_config('enable_hashagg', 'off', true)`;

/**
 * The lock a job's creating transaction holds from just before its workflow starts until it commits: the workflow's
 * first step waits on it (`awaitJobCreation`), so the workflow starts while the first range is still being written
 * instead of after. A transaction that never commits leaves no job, and that step then finds the job gone.
 */
const creationLockSql = (fn: 'pg_advisory_xact_lock' | 'pg_advisory_xact_lock_shared') =>
  `select ${fn}(hashtextextended('verification-create:' || ?, 0))`;

export async function holdJobCreation(tx: EntityManager, jobId: string): Promise<void> {
  await runSql(tx, creationLockSql('pg_advisory_xact_lock'), [jobId]);
}

/** Returns once the transaction creating the job (if one still runs) has ended. */
export async function awaitJobCreation(em: EntityManager, jobId: string): Promise<void> {
  await runSql(em, creationLockSql('pg_advisory_xact_lock_shared'), [jobId]);
}

/**
 * Counts the list's first domains in domain order (about FIRST_RANGE_ADDRESSES addresses, whole domains) into the new
 * job (inside its transaction). Returns how many distinct addresses they hold and whether they are all the list's.
 */
export async function countFirstDomains(em: EntityManager, jobId: string, listId: string): Promise<{ addresses: number; all: boolean }> {
  await runSql(em, DOMAIN_ORDER_ONLY_SQL);
  const [end] = await runSql(em, FIRST_RANGE_END_SQL, [listId, FIRST_RANGE_ADDRESSES]);
  if (end!.last_domain === null) return { addresses: 0, all: true };
  const rows = await runSql(em, COUNT_FIRST_DOMAINS_SQL, [jobId, jobId, listId, end!.last_domain]);
  return { addresses: rows.reduce((sum, r) => sum + Number(r.email_count), 0), all: Number(end!.entries) < FIRST_RANGE_ADDRESSES };
}

/**
 * The job's domains not counted at creation, counted (inside the caller's transaction, the job's row locked, sorting
 * off: DOMAIN_ORDER_ONLY_SQL); returns how many addresses that added.
 */
async function countLaterDomains(tx: EntityManager, jobId: string, listId: string): Promise<number> {
  const rows = await runSql(tx, COUNT_LATER_DOMAINS_SQL, [jobId, jobId, listId, jobId]);
  const addresses = rows.reduce((sum, r) => sum + Number(r.email_count), 0);
  await kysely(tx)
    .updateTable('verification_job')
    .set((eb) => ({ domainsCounted: true, totalEmails: eb('totalEmails', '+', addresses) }))
    .where('id', '=', jobId)
    .execute();
  return addresses;
}

/**
 * The job's row locked for its snapshot's next step: against the other steps, not against the rows that refer to the
 * job (their foreign-key checks share the row; the probes go on while the list is counted).
 */
async function lockSnapshot(tx: EntityManager, jobId: string) {
  const job = await kysely(tx)
    .selectFrom('verification_job')
    .select(['list', 'snapshotSeq', 'domainsCounted', 'totalEmails'])
    .where('id', '=', jobId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!job) throw new JobGoneError('verification', jobId);
  return job;
}

/**
 * Counts the domains after the job's first range unless that is done (by this request's earlier try, or by the
 * workflow when the creating request died before); returns the job's distinct addresses, all of them counted.
 */
export async function countJobDomains(em: EntityManager, jobId: string): Promise<number> {
  return em.transactional(async (tx) => {
    const job = await lockSnapshot(tx, jobId);
    if (job.domainsCounted) return job.totalEmails;
    await runSql(tx, DOMAIN_ORDER_ONLY_SQL);
    return job.totalEmails + (await countLaterDomains(tx, jobId, job.list));
  });
}

export interface WrittenRange {
  /** The last seq now written. */
  toSeq: number;
  /** Every domain counted so far is written. */
  all: boolean;
  /** Written minus counted: not 0 only when the list changed after the job counted it. */
  drift: number;
}

/**
 * Writes the range after `afterSeq`, `least` addresses when nothing is written yet, else twice what is, up to
 * MAX_RANGE_ADDRESSES. The domains stay those counted; a range that finds more or fewer addresses than counted
 * (leads added or removed since) recounts its domains, so every count matches the rows.
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
  return { toSeq: Math.min(toSeq, lastSeq), all: toSeq >= lastSeq, drift };
}

/**
 * Writes the job's next range, if any is left, in one transaction with the job's progress (the row locked, so a
 * retried activity never writes a range twice), counting the domains after the first range first if the creating
 * request has not; returns the last seq written and how many domains the job has (the same, once all are written).
 */
export async function writeNextSnapshotRange(em: EntityManager, jobId: string): Promise<{ writtenSeq: number; domainCount: number }> {
  return em.transactional(async (tx) => {
    const job = await lockSnapshot(tx, jobId);
    // For the range's reads too: a plan that believes the list holds a lead or two took the list's smallest index and
    // sorted the whole list for each domain (a second range of 10,000 addresses: 4 s, every slice's job update
    // waiting behind it, SMTP idle for 1.5 s).
    await runSql(tx, DOMAIN_ORDER_ONLY_SQL);
    if (!job.domainsCounted) await countLaterDomains(tx, jobId, job.list);
    // A statement of its own after the lock: a count in the locking statement would see the job's domains as they
    // were before a count it waited for (only the locked row itself is read again after the wait).
    const { n: domainCount } = await kysely(tx)
      .selectFrom('verification_domain')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('job', '=', jobId)
      .executeTakeFirstOrThrow();
    let writtenSeq: number | null = null;
    if (job.snapshotSeq !== null) {
      const range = await writeSnapshotRange(tx, jobId, job.list, job.snapshotSeq, FIRST_RANGE_ADDRESSES);
      writtenSeq = range.all ? null : range.toSeq;
      await kysely(tx)
        .updateTable('verification_job')
        .set((eb) => ({ snapshotSeq: writtenSeq, totalEmails: eb('totalEmails', '+', range.drift) }))
        .where('id', '=', jobId)
        .execute();
    }
    return { writtenSeq: writtenSeq ?? domainCount, domainCount };
  });
}
