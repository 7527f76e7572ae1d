/**
 * The single-address check's memory (CONTRACT §9.1): an organization's recent results, from its single checks and
 * its verification jobs alike; the domain facts it shares with the finder are in src/db/repos/domain-facts.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmailResult } from '../domain/lead.ts';
import { newId } from '../db/entities/common.ts';

export interface CheckRecord {
  email: string;
  domain: string;
  result: EmailResult;
  reason: string | null;
  mxHost: string | null;
  isCatchAll: boolean | null;
  /** The evidence behind the verdict (CONTRACT §10), as a job's result carries it. */
  smtpCode: number | null;
  enhancedCode: string | null;
  attempts: number;
  checkedAt: Date;
}

/** A verdict given without any SMTP (syntax, a known domain, no answer in time): no reply, no attempt. */
export const NO_SMTP = { smtpCode: null, enhancedCode: null, attempts: 0 } as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw rows, mapped field by field
const date = (v: any): Date => (v instanceof Date ? v : new Date(v));

export async function saveCheck(em: EntityManager, organizationId: string, check: CheckRecord): Promise<void> {
  await em.getConnection().execute(
    `insert into verify_check (id, organization_id, email, domain, result, reason, mx_host, is_catch_all, smtp_code, enhanced_code, attempts, checked_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [newId(), organizationId, check.email, check.domain, check.result, check.reason, check.mxHost, check.isCatchAll, check.smtpCode, check.enhancedCode, check.attempts, check.checkedAt],
  );
}

/**
 * The organization's newest final verdict (Valid, Invalid, Catch-All) for the address younger than `ttlMs`,
 * from a single check or a job. Unknown is never reused: it is the one answer a later call may improve.
 */
export async function recentResult(em: EntityManager, organizationId: string, email: string, ttlMs: number): Promise<CheckRecord | null> {
  const [row] = await em.getConnection().execute(
    `select * from (
       select c.email, c.domain, c.result, c.reason, c.mx_host, c.is_catch_all, c.smtp_code, c.enhanced_code, c.attempts, c.checked_at
         from verify_check c
        where c.organization_id = ? and c.email = ? and c.result <> 'Unknown'
          and c.checked_at > now() - make_interval(secs => ?)
       union all
       select r.email, r.domain, r.result, r.reason, r.mx_host, d.is_catch_all, r.smtp_code, r.enhanced_code, r.attempts, r.checked_at
         from verification_result r
         join verification_job j on j.id = r.job_id
         left join verification_domain d on d.job_id = r.job_id and d.domain = r.domain
        where j.organization_id = ? and r.email = ? and r.result is not null and r.result <> 'Unknown'
          and r.checked_at > now() - make_interval(secs => ?)
     ) recent order by checked_at desc limit 1`,
    [organizationId, email, ttlMs / 1000, organizationId, email, ttlMs / 1000],
  );
  if (!row) return null;
  return {
    email: row.email,
    domain: row.domain,
    result: row.result,
    reason: row.reason,
    mxHost: row.mx_host,
    isCatchAll: row.is_catch_all,
    smtpCode: row.smtp_code,
    enhancedCode: row.enhanced_code,
    attempts: row.attempts,
    checkedAt: date(row.checked_at),
  };
}

/** Deletes cache rows no read can use any more (older than their TTL), in batches so each delete stays short. */
export async function deleteExpiredCache(em: EntityManager, ttl: { resultMs: number; domainMs: number }, batch = 5_000): Promise<{ checks: number; domainFacts: number }> {
  const sweep = async (table: 'verify_check' | 'verify_domain_fact', ttlMs: number) => {
    let total = 0;
    for (;;) {
      const rows = await em.getConnection().execute(
        `delete from ${table} where id in (select id from ${table} where checked_at < now() - make_interval(secs => ?) limit ?) returning id`,
        [ttlMs / 1000, batch],
      );
      total += rows.length;
      if (rows.length < batch) return total;
    }
  };
  return { checks: await sweep('verify_check', ttl.resultMs), domainFacts: await sweep('verify_domain_fact', ttl.domainMs) };
}
