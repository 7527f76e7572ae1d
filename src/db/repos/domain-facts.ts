/** Domain facts shared by everyone (CONTRACT §9.1): what a probe learned about a domain, read by the single check and the finder. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { newId } from '../entities/common.ts';
import { kysely } from '../kysely.ts';

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

const FACT_COLUMNS = ['domain', 'mxHost', 'isCatchAll', 'mailVerdict', 'smtpCode', 'enhancedCode', 'checkedAt'] as const;

export async function freshDomainFact(em: EntityManager, domain: string, ttlMs: number): Promise<DomainFact | null> {
  const row = await kysely(em)
    .selectFrom('verify_domain_fact')
    .select(FACT_COLUMNS)
    .where('domain', '=', domain)
    .where('checkedAt', '>', sql<Date>`now() - make_interval(secs => ${ttlMs / 1000})`)
    .executeTakeFirst();
  return row ?? null;
}

/** Last writer wins: any process's newer probe replaces the fact. */
export async function saveDomainFact(em: EntityManager, fact: DomainFact): Promise<void> {
  await kysely(em)
    .insertInto('verify_domain_fact')
    .values({
      id: newId(),
      domain: fact.domain,
      mxHost: fact.mxHost,
      isCatchAll: fact.isCatchAll,
      mailVerdict: fact.mailVerdict,
      smtpCode: fact.smtpCode,
      enhancedCode: fact.enhancedCode,
      checkedAt: fact.checkedAt,
    })
    .onConflict((oc) =>
      oc.column('domain').doUpdateSet((eb) => ({
        mxHost: eb.ref('excluded.mxHost'),
        isCatchAll: eb.ref('excluded.isCatchAll'),
        mailVerdict: eb.ref('excluded.mailVerdict'),
        smtpCode: eb.ref('excluded.smtpCode'),
        enhancedCode: eb.ref('excluded.enhancedCode'),
        checkedAt: eb.ref('excluded.checkedAt'),
      })),
    )
    .execute();
}
