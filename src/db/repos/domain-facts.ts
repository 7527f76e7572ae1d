/** Domain facts shared by everyone (CONTRACT §9.1): what a probe learned about a domain, read by the single check and the finder. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../entities/common.ts';

export interface DomainFact {
  domain: string;
  mxHost: string | null;
  isCatchAll: boolean | null;
  /** Set when DNS alone decided the domain takes no mail (`no MX or A record`, null MX). */
  mailVerdict: string | null;
  /** The reply that proved the domain catch-all, when it is. */
  smtpCode: number | null;
  enhancedCode: string | null;
  checkedAt: Date;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw rows, mapped field by field
const date = (v: any): Date => (v instanceof Date ? v : new Date(v));

export async function freshDomainFact(em: EntityManager, domain: string, ttlMs: number): Promise<DomainFact | null> {
  const [row] = await em.getConnection().execute(
    `select domain, mx_host, is_catch_all, mail_verdict, smtp_code, enhanced_code, checked_at from verify_domain_fact
      where domain = ? and checked_at > now() - make_interval(secs => ?)`,
    [domain, ttlMs / 1000],
  );
  if (!row) return null;
  return {
    domain: row.domain,
    mxHost: row.mx_host,
    isCatchAll: row.is_catch_all,
    mailVerdict: row.mail_verdict,
    smtpCode: row.smtp_code,
    enhancedCode: row.enhanced_code,
    checkedAt: date(row.checked_at),
  };
}

/** Last writer wins: any process's newer probe replaces the fact. */
export async function saveDomainFact(em: EntityManager, fact: DomainFact): Promise<void> {
  await em.getConnection().execute(
    `insert into verify_domain_fact (id, domain, mx_host, is_catch_all, mail_verdict, smtp_code, enhanced_code, checked_at) values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (domain) do update set mx_host = excluded.mx_host, is_catch_all = excluded.is_catch_all,
       mail_verdict = excluded.mail_verdict, smtp_code = excluded.smtp_code, enhanced_code = excluded.enhanced_code, checked_at = excluded.checked_at`,
    [newId(), fact.domain, fact.mxHost, fact.isCatchAll, fact.mailVerdict, fact.smtpCode, fact.enhancedCode, fact.checkedAt],
  );
}
