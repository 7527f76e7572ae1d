import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { eventually } from '../support/eventually.ts';
import { createVerificationJob } from '../../src/verification/repository.ts';
import {
  awaitJobCreation,
  COUNT_FIRST_DOMAINS_SQL,
  COUNT_LATER_DOMAINS_SQL,
  countJobDomains,
  DOMAIN_ORDER_ONLY_SQL,
  FIRST_RANGE_ADDRESSES,
  FIRST_RANGE_END_SQL,
  WRITE_RANGE_SQL,
  writeNextSnapshotRange,
} from '../../src/verification/repository-snapshot.ts';

/**
 * A job's snapshot written in ranges of domains (repository-snapshot.ts): creation counts and writes the list's first
 * domains in domain order only, the rest is counted after (by the creating request, or by the workflow's next range
 * when that request died); each next range doubles what is written; every address is written once, and a list
 * changed in between is counted as written.
 */

const DOMAINS = 60;
const PER_DOMAIN = 100;
const domainOf = (k: number) => `rng${String(k).padStart(2, '0')}.snapshot.test`;

let orm: Orm;
const organizationId = randomUUID();
const listId = randomUUID();

/** The repository's steps alone: no workflow is started for these jobs. */
const noWorkflow = async () => undefined;

async function rows(sql: string, params: unknown[] = []) {
  return orm.em.fork().execute(sql, params);
}

beforeAll(async () => {
  orm = await initOrm(inject('databaseUrl'));
  await rows(`insert into organization (id, name, created_at) values (?, 'ranges', now())`, [organizationId]);
  await rows(`insert into lead_list (id, organization_id, name, created_at, updated_at) values (?, ?, 'ranges', now(), now())`, [
    listId,
    organizationId,
  ]);
  // Every address twice, once upper-cased: the job holds it once.
  await rows(
    `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
     select gen_random_uuid(), ?, ?, case when c = 1 then upper(e) else e end, 'import', now(), now()
     from (select 'p' || n || '@rng' || lpad(d::text, 2, '0') || '.snapshot.test' as e
           from generate_series(0, ?) d, generate_series(1, ?) n) a, generate_series(1, 2) c`,
    [organizationId, listId, DOMAINS - 1, PER_DOMAIN],
  );
  await rows(`analyze lead`);
});

afterAll(async () => {
  await rows(`delete from organization where id = ?`, [organizationId]);
  await orm.close();
});

async function resultCount(jobId: string) {
  const [row] = await rows(`select count(*)::int as n from verification_result where job_id = ?`, [jobId]);
  return Number(row!.n);
}

/** A list of 20,000 leads holding an address alone, over `domains` domains, that no analyze has seen. */
async function unseenList(name: string, domains: number): Promise<string> {
  const id = randomUUID();
  await rows(`insert into lead_list (id, organization_id, name, created_at, updated_at) values (?, ?, ?, now(), now())`, [id, organizationId, name]);
  await rows(
    `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
     select gen_random_uuid(), ?, ?, ? || n || '@' || ? || (n % ?) || '.snapshot.test', 'import', now(), now()
     from generate_series(1, 20000) n`,
    [organizationId, id, name, name, domains],
  );
  return id;
}

describe('the verification snapshot in ranges', () => {
  it('writes the first domains with the job, counts the rest after, writes range by range, each address once, recounting a changed list', async () => {
    const created = await createVerificationJob(orm.em.fork(), organizationId, listId, 'smtp_only', noWorkflow);
    const jobId = created.job.id;
    // Every address is held twice: the first range's FIRST_RANGE_ADDRESSES index entries are half as many addresses.
    const firstDomains = FIRST_RANGE_ADDRESSES / 2 / PER_DOMAIN;
    expect(created.job).toMatchObject({ totalEmails: firstDomains * PER_DOMAIN, domainsCounted: false, snapshotSeq: firstDomains });
    expect(await resultCount(jobId)).toBe(firstDomains * PER_DOMAIN);
    const firstWritten = await rows(`select distinct domain from verification_result where job_id = ? order by domain`, [jobId]);
    expect(firstWritten.map((r) => r.domain)).toEqual(Array.from({ length: firstDomains }, (_, k) => domainOf(k)));

    await expect(countJobDomains(orm.em.fork(), jobId)).resolves.toBe(DOMAINS * PER_DOMAIN);
    // Counted once: a second call (the request retried, or the workflow after it) counts nothing again.
    await expect(countJobDomains(orm.em.fork(), jobId)).resolves.toBe(DOMAINS * PER_DOMAIN);
    const [domains] = await rows(`select count(*)::int as n, count(distinct seq)::int as seqs, max(seq) as last from verification_domain where job_id = ?`, [jobId]);
    expect(domains).toEqual({ n: DOMAINS, seqs: DOMAINS, last: DOMAINS });
    expect(await resultCount(jobId)).toBe(firstDomains * PER_DOMAIN);

    // The list changes before the next range: one address gone, three new ones, all in unwritten domains.
    await rows(`delete from lead where list_id = ? and email_key = ?`, [listId, `p1@${domainOf(55)}`]);
    await rows(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, 'late' || n || '@' || ?, 'api', now(), now() from generate_series(1, 3) n`,
      [organizationId, listId, domainOf(58)],
    );

    await expect(writeNextSnapshotRange(orm.em.fork(), jobId)).resolves.toEqual({ writtenSeq: DOMAINS, domainCount: DOMAINS });
    const expected = DOMAINS * PER_DOMAIN - 1 + 3;
    expect(await resultCount(jobId)).toBe(expected);
    const [job] = await rows(`select snapshot_seq, total_emails from verification_job where id = ?`, [jobId]);
    expect(job).toEqual({ snapshot_seq: null, total_emails: expected });
    const mismatched = await rows(
      `select d.domain from verification_domain d
       where d.job_id = ? and d.email_count <> (select count(*) from verification_result r where r.job_id = d.job_id and r.domain = d.domain)`,
      [jobId],
    );
    expect(mismatched).toEqual([]);

    // Once every range is in, another call (a retried activity) writes nothing.
    await expect(writeNextSnapshotRange(orm.em.fork(), jobId)).resolves.toEqual({ writtenSeq: DOMAINS, domainCount: DOMAINS });
    expect(await resultCount(jobId)).toBe(expected);
    // Put back for the next tests.
    await rows(`delete from lead where list_id = ? and email_key like 'late%'`, [listId]);
    await rows(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at) values (gen_random_uuid(), ?, ?, ?, 'api', now(), now())`,
      [organizationId, listId, `p1@${domainOf(55)}`],
    );
  });

  it('counts the rest in the next range when the creating request died before it did', async () => {
    await rows(`update verification_job set verification_stage = 'completed' where list_id = ?`, [listId]);
    const created = await createVerificationJob(orm.em.fork(), organizationId, listId, 'smtp_only', noWorkflow);
    const jobId = created.job.id;
    expect(created.job.domainsCounted).toBe(false);
    // The domains counted only now are fewer than twice the first range's addresses: all of them written at once.
    await expect(writeNextSnapshotRange(orm.em.fork(), jobId)).resolves.toEqual({ writtenSeq: DOMAINS, domainCount: DOMAINS });
    expect(await resultCount(jobId)).toBe(DOMAINS * PER_DOMAIN);
    const [job] = await rows(`select total_emails, domains_counted from verification_job where id = ?`, [jobId]);
    expect(job).toEqual({ total_emails: DOMAINS * PER_DOMAIN, domains_counted: true });
    await expect(countJobDomains(orm.em.fork(), jobId)).resolves.toBe(DOMAINS * PER_DOMAIN);
  });

  it('writes the next range after the count it waited for, knowing every domain that count added', async () => {
    await rows(`update verification_job set verification_stage = 'completed' where list_id = ?`, [listId]);
    const created = await createVerificationJob(orm.em.fork(), organizationId, listId, 'smtp_only', noWorkflow);
    const jobId = created.job.id;
    let next: ReturnType<typeof writeNextSnapshotRange> | undefined;
    // The creating request's count holds the job row while the workflow's next range asks for it.
    await orm.em.fork().transactional(async (tx) => {
      await tx.execute(`select 1 from verification_job where id = ? for no key update`, [jobId]);
      next = writeNextSnapshotRange(orm.em.fork(), jobId);
      await eventually(
        async () => (await rows(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`))[0]!.n,
        (waiting) => waiting === 1,
        { what: 'the next range waiting for the job row' },
      );
      await countJobDomains(tx, jobId);
    });
    await expect(next!).resolves.toEqual({ writtenSeq: DOMAINS, domainCount: DOMAINS });
    expect(await resultCount(jobId)).toBe(DOMAINS * PER_DOMAIN);
  });

  it('counts a list of fewer addresses than the first range whole with the job', async () => {
    const small = randomUUID();
    await rows(`insert into lead_list (id, organization_id, name, created_at, updated_at) values (?, ?, 'small', now(), now())`, [small, organizationId]);
    // Leads without an address sort first in the domain index and count for nothing; one without a domain part is an address.
    await rows(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, e, 'import', now(), now()
       from unnest(array[null, null, 'no-domain', 'a@small.test', 'b@small.test', 'A@small.test', 'c@other.test']) e`,
      [organizationId, small],
    );
    const created = await createVerificationJob(orm.em.fork(), organizationId, small, 'smtp_only', noWorkflow);
    expect(created.job).toMatchObject({ totalEmails: 4, domainsCounted: true, snapshotSeq: null });
    const written = await rows(`select email from verification_result where job_id = ? order by email`, [created.job.id]);
    expect(written.map((r) => r.email)).toEqual(['a@small.test', 'b@small.test', 'c@other.test', 'no-domain']);
  });

  it('starts the workflow before the first range is written: its first step waits for the creating transaction', async () => {
    const list = randomUUID();
    await rows(`insert into lead_list (id, organization_id, name, created_at, updated_at) values (?, ?, 'early', now(), now())`, [list, organizationId]);
    await rows(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, 'e' || n || '@early' || (n % 7) || '.snapshot.test', 'import', now(), now() from generate_series(1, 70) n`,
      [organizationId, list],
    );
    // A workflow that cannot start leaves no job behind: the list is free for the next one.
    const refused = new Error('Temporal unavailable');
    await expect(
      createVerificationJob(orm.em.fork(), organizationId, list, 'smtp_only', async () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
    const [jobs] = await rows(`select count(*)::int as n from verification_job where list_id = ?`, [list]);
    expect(jobs).toEqual({ n: 0 });

    // What the workflow's plan step does first, from another connection, while the job's transaction is still open:
    // it waits, then finds the job with its first range.
    let planned: Promise<number> | undefined;
    const created = await createVerificationJob(orm.em.fork(), organizationId, list, 'smtp_only', async (jobId) => {
      planned = awaitJobCreation(orm.em.fork(), jobId).then(async () => Number((await rows(`select count(*)::int as n from verification_result where job_id = ?`, [jobId]))[0]!.n));
      await expect(Promise.race([planned, sleep(300).then(() => 'waiting')])).resolves.toBe('waiting');
    });
    await expect(planned).resolves.toBe(70);
    expect(created.job).toMatchObject({ totalEmails: 70, snapshotSeq: null });
  });

  it('doubles each range: 5,000 addresses with the job, then twice what is written', async () => {
    await rows(`update verification_job set verification_stage = 'completed' where list_id = ?`, [listId]);
    const created = await createVerificationJob(orm.em.fork(), organizationId, listId, 'smtp_only', noWorkflow);
    const jobId = created.job.id;
    await countJobDomains(orm.em.fork(), jobId);
    // Domains counted at 1,000 addresses with 5 of them written: the next range holds about twice that, 10 domains.
    await rows(`update verification_domain set email_count = email_count * 10 where job_id = ?`, [jobId]);
    await rows(`update verification_job set snapshot_seq = 5 where id = ?`, [jobId]);
    await rows(`delete from verification_result where job_id = ? and domain in (select domain from verification_domain where job_id = ? and seq > 5)`, [
      jobId,
      jobId,
    ]);
    await expect(writeNextSnapshotRange(orm.em.fork(), jobId)).resolves.toEqual({ writtenSeq: 15, domainCount: DOMAINS });
  });

  it('reads each domain of a range through the list-by-domain index', async () => {
    const plan = await rows(`explain ${WRITE_RANGE_SQL}`, [listId, randomUUID(), 0, 10]);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('lead_list_id_email_domain_index');
    expect(text).not.toMatch(/Seq Scan on lead/);
  });

  it('writes the next range of a list the statistics have never seen through the list-by-domain index', async () => {
    // Addresses alone, as most imported lists hold: the (list_id, network_url) index, its empty URLs deduplicated, is the
    // smallest that starts with list_id, and the one a plan that believes the list holds a lead or two took.
    const fresh = await unseenList('unseen', 200);
    const jobId = (await createVerificationJob(orm.em.fork(), organizationId, fresh, 'smtp_only', noWorkflow)).job.id;
    // Counted by the creating request, as it is once it answers: the next range is written without counting first.
    await countJobDomains(orm.em.fork(), jobId);
    // What this transaction's statements read, index by index (the next range's own transaction nests in it).
    const scans = await orm.em.fork().transactional(async (tx) => {
      await writeNextSnapshotRange(tx, jobId);
      const used = await tx.execute(
        `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid
         where i.indrelid = 'lead'::regclass and pg_stat_get_xact_numscans(c.oid) > 0`,
      );
      return used.map((r) => r.name as string);
    });
    expect(scans).toEqual(['lead_list_id_email_domain_index']);
    expect(await resultCount(jobId)).toBeGreaterThan(FIRST_RANGE_ADDRESSES);
  });

  it('counts a list the statistics have never seen in one pass of the domain index, without a sort', async () => {
    const fresh = await unseenList('fresh', 300);
    const job = randomUUID();
    const plans = await orm.em.fork().transactional(async (tx) => {
      await tx.execute(DOMAIN_ORDER_ONLY_SQL);
      const explain = async (text: string, params: unknown[]) => (await tx.execute(`explain ${text}`, params)).map((r) => r['QUERY PLAN']).join('\n');
      return [
        await explain(FIRST_RANGE_END_SQL, [fresh, FIRST_RANGE_ADDRESSES]),
        await explain(COUNT_FIRST_DOMAINS_SQL, [job, job, fresh, 'fresh150.snapshot.test']),
        await explain(COUNT_LATER_DOMAINS_SQL, [job, job, fresh, job]),
      ];
    });
    for (const text of plans) {
      expect(text).toMatch(/Index Only Scan using lead_list_id_email_domain_index/);
      // The leads without an address are skipped by the index condition, not read and filtered.
      expect(text).toMatch(/Index Cond: .*list_id = .*(ROW\(|> )/);
      expect(text).not.toMatch(/Sort Key: \(CASE|HashAggregate|Bitmap Heap Scan on lead/);
    }
  });
});
