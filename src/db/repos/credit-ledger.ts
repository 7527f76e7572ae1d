import type { EntityManager } from '@mikro-orm/postgresql';
import { CreditLedgerEntry, Organization } from '../entities/index.ts';

/** The organization's balance: the cached sum its ledger rows move (see credits.ts `applyCredits`). */
export async function getBalance(em: EntityManager, organizationId: string): Promise<number> {
  const org = await em.findOne(Organization, { id: organizationId }, { fields: ['creditBalance'] });
  return org?.creditBalance ?? 0;
}

/** Ledger entries, newest first (ids are time-ordered UUIDv7). */
export async function pageLedger(em: EntityManager, organizationId: string, offset: number, limit: number) {
  const [rows, total] = await em.findAndCount(
    CreditLedgerEntry,
    { organization: organizationId },
    { orderBy: { id: 'desc' }, offset, limit },
  );
  return { rows, total };
}
