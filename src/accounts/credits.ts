/** An organization's credits as its owners see them: the balance and the ledger rows that sum to it. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ICreditLedgerEntry } from '../db/entities/credit-ledger.ts';
import { getBalance, pageLedger } from '../db/repos/credit-ledger.ts';

export type LedgerEntryRecord = ICreditLedgerEntry;

export function creditBalance(em: EntityManager, organizationId: string): Promise<number> {
  return getBalance(em, organizationId);
}

export function pageCreditLedger(em: EntityManager, organizationId: string, offset: number, limit: number) {
  return pageLedger(em, organizationId, offset, limit);
}
