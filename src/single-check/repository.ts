/**
 * The single-address check's memory (CONTRACT §9.1): an organization's recent results, from its single checks and
 * its verification jobs alike; the domain facts it shares with the finder are in src/db/repos/domain-facts.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { EmailResult } from '../domain/lead.ts';
import { sql } from 'kysely';
import { newId } from '../db/entities/common.ts';
import { kysely } from '../db/kysely.ts';

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

export async function saveCheck(em: EntityManager, organizationId: string, check: CheckRecord): Promise<void> {
  await kysely(em)
    .insertInto('verify_check')
    .values({
      id: newId(),
      organization: organizationId,
      email: check.email,
      domain: check.domain,
      result: check.result,
      reason: check.reason,
      mxHost: check.mxHost,
      isCatchAll: check.isCatchAll,
      smtpCode: check.smtpCode,
      enhancedCode: check.enhancedCode,
      attempts: check.attempts,
      checkedAt: check.checkedAt,
    })
    .execute();
}

const youngerThan = (ttlMs: number) => sql<Date>`now() - make_interval(secs => ${ttlMs / 1000})`;

/**
 * The organization's newest final verdict (Valid, Invalid, Catch-All) for the address younger than `ttlMs`,
 * from a single check or a job. Unknown is never reused: it is the one answer a later call may improve.
 */
export async function recentResult(em: EntityManager, organizationId: string, email: string, ttlMs: number): Promise<CheckRecord | null> {
  const db = kysely(em);
  const checks = db
    .selectFrom('verify_check as c')
    .select(['c.email', 'c.domain', 'c.result', 'c.reason', 'c.mxHost', 'c.isCatchAll', 'c.smtpCode', 'c.enhancedCode', 'c.attempts', 'c.checkedAt'])
    .where('c.organization', '=', organizationId)
    .where('c.email', '=', email)
    .where('c.result', '<>', 'Unknown')
    .where('c.checkedAt', '>', youngerThan(ttlMs));
  const jobs = db
    .selectFrom('verification_result as r')
    .innerJoin('verification_job as j', 'j.id', 'r.job')
    .leftJoin('verification_domain as d', (join) => join.onRef('d.job', '=', 'r.job').onRef('d.domain', '=', 'r.domain'))
    .select(['r.email', 'r.domain', 'r.result', 'r.reason', 'r.mxHost', 'd.isCatchAll', 'r.smtpCode', 'r.enhancedCode', 'r.attempts', 'r.checkedAt'])
    .where('j.organization', '=', organizationId)
    .where('r.email', '=', email)
    .where('r.result', 'is not', null)
    .where('r.result', '<>', 'Unknown')
    .where('r.checkedAt', '>', youngerThan(ttlMs))
    .$narrowType<{ result: EmailResult; checkedAt: Date }>();
  const row = await db.selectFrom(checks.unionAll(jobs).as('recent')).selectAll().orderBy('checkedAt', 'desc').limit(1).executeTakeFirst();
  return row ?? null;
}

/** Deletes cache rows no read can use any more (older than their TTL), in batches so each delete stays short. */
export async function deleteExpiredCache(em: EntityManager, ttl: { resultMs: number; domainMs: number }, batch = 5_000): Promise<{ checks: number; domainFacts: number }> {
  const db = kysely(em);
  const sweep = async (table: 'verify_check' | 'verify_domain_fact', ttlMs: number) => {
    let total = 0;
    for (;;) {
      const rows = await db
        .deleteFrom(table)
        .where('id', 'in', db.selectFrom(table).select('id').where('checkedAt', '<', youngerThan(ttlMs)).limit(batch))
        .returning('id')
        .execute();
      total += rows.length;
      if (rows.length < batch) return total;
    }
  };
  return { checks: await sweep('verify_check', ttl.resultMs), domainFacts: await sweep('verify_domain_fact', ttl.domainMs) };
}
