import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createVerificationJob } from '../../src/verification/repository.ts';
import {
  COUNT_DOMAINS_SQL,
  DOMAIN_ORDER_ONLY_SQL,
  FIRST_RANGE_ADDRESSES,
  WRITE_RANGE_SQL,
  writeNextSnapshotRange,
} from '../../src/verification/repository-snapshot.ts';

/**
 * A job's snapshot written in ranges of domains (repository-snapshot.ts): creation counts the list by domain and
 * writes the first range only; each next range doubles what is written; every address is written once, and a list
 * changed in between is counted as written.
 */

const DOMAINS = 60;
const PER_DOMAIN = 100;
const domainOf = (k: number) => `rng${String(k).padStart(2, '0')}.snapshot.test`;

let orm: Orm;
const organizationId = randomUUID();
const listId = randomUUID();

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

describe('the verification snapshot in ranges', () => {
  it('writes the first range with the job, the rest range by range, each address once, recounting a changed list', async () => {
    const created = await createVerificationJob(orm.em.fork(), organizationId, listId, 'smtp_only');
    const jobId = created.job.id;
    expect(created.job.totalEmails).toBe(DOMAINS * PER_DOMAIN);
    const firstDomains = FIRST_RANGE_ADDRESSES / PER_DOMAIN;
    expect(created.job.snapshotSeq).toBe(firstDomains);
    expect(await resultCount(jobId)).toBe(FIRST_RANGE_ADDRESSES);
    const written = await rows(
      `select distinct r.domain from verification_result r join verification_domain d on d.job_id = r.job_id and d.domain = r.domain
       where r.job_id = ? and d.seq > ?`,
      [jobId, firstDomains],
    );
    expect(written).toEqual([]);

    // The list changes before the next range: one address gone, three new ones, all in unwritten domains.
    await rows(`delete from lead where list_id = ? and email_key = ?`, [listId, `p1@${domainOf(55)}`]);
    await rows(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, 'late' || n || '@' || ?, 'api', now(), now() from generate_series(1, 3) n`,
      [organizationId, listId, domainOf(58)],
    );

    await expect(writeNextSnapshotRange(orm.em.fork(), jobId)).resolves.toEqual({ writtenSeq: DOMAINS });
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
    await expect(writeNextSnapshotRange(orm.em.fork(), jobId)).resolves.toEqual({ writtenSeq: DOMAINS });
    expect(await resultCount(jobId)).toBe(expected);
  });

  it('doubles each range: 5,000 addresses with the job, then twice what is written', async () => {
    await rows(`update verification_job set verification_stage = 'completed' where list_id = ?`, [listId]);
    const created = await createVerificationJob(orm.em.fork(), organizationId, listId, 'smtp_only');
    const jobId = created.job.id;
    // Domains counted at 1,000 addresses with 5 of them written: the next range holds about twice that, 10 domains.
    await rows(`update verification_domain set email_count = email_count * 10 where job_id = ?`, [jobId]);
    await rows(`update verification_job set snapshot_seq = 5 where id = ?`, [jobId]);
    await rows(`delete from verification_result where job_id = ? and domain in (select domain from verification_domain where job_id = ? and seq > 5)`, [
      jobId,
      jobId,
    ]);
    await expect(writeNextSnapshotRange(orm.em.fork(), jobId)).resolves.toEqual({ writtenSeq: 15 });
  });

  it('reads each domain of a range through the list-by-domain index', async () => {
    const plan = await rows(`explain ${WRITE_RANGE_SQL}`, [listId, randomUUID(), 0, 10]);
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('lead_list_id_email_domain_index');
    expect(text).not.toMatch(/Seq Scan on lead/);
  });

  it('counts a list the statistics have never seen in one pass of the domain index, without a sort', async () => {
    const fresh = randomUUID();
    await rows(`insert into lead_list (id, organization_id, name, created_at, updated_at) values (?, ?, 'fresh', now(), now())`, [
      fresh,
      organizationId,
    ]);
    await rows(
      `insert into lead (id, organization_id, list_id, email, source, created_at, updated_at)
       select gen_random_uuid(), ?, ?, 'f' || n || '@fresh' || (n % 300) || '.snapshot.test', 'import', now(), now()
       from generate_series(1, 20000) n`,
      [organizationId, fresh],
    );
    const plan = await orm.em.fork().transactional(async (tx) => {
      await tx.execute(DOMAIN_ORDER_ONLY_SQL);
      return tx.execute(`explain ${COUNT_DOMAINS_SQL}`, [randomUUID(), fresh]);
    });
    const text = plan.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Index Only Scan using lead_list_id_email_domain_index/);
    expect(text).not.toMatch(/Sort Key: \(CASE|HashAggregate|Bitmap Heap Scan on lead/);
  });
});
