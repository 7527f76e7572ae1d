/**
 * An organization's credits in one place: the one way to move them (`applyCredits`: a ledger row and the balance in
 * one transaction) and what its owners see (the balance and the ledger rows that sum to it).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { creditsMoved } from '../metrics.ts';
import { newId } from '../db/entities/common.ts';
import type { ICreditLedgerEntry } from '../db/entities/credit-ledger.ts';
import { CreditLedgerEntry, Organization } from '../db/entities/index.ts';
import { kysely } from '../db/kysely.ts';

export type LedgerEntryRecord = ICreditLedgerEntry;

export interface CreditEntry {
  organizationId: string;
  /** Positive for grants, negative for charges. */
  delta: number;
  reason: string;
  refType?: string | null;
  refId?: string | null;
  /** Unique per grant or charge: a retried call with the same key changes nothing. */
  idempotencyKey: string;
}

export class InsufficientCreditsError extends Error {
  readonly balance: number;
  constructor(balance: number) {
    super('Insufficient credits');
    this.balance = balance;
  }
}

/**
 * Moves the balance and appends the ledger row in one transaction. The ledger insert comes first so a
 * concurrent duplicate blocks on the unique key and then sees the row; the balance update is conditional,
 * so the balance never goes negative. Returns applied=false when the key was already used.
 */
export async function applyCredits(em: EntityManager, entry: CreditEntry): Promise<{ applied: boolean; balance: number }> {
  if (!Number.isSafeInteger(entry.delta) || entry.delta === 0) throw new Error('credit delta must be a non-zero integer');
  const result = await em.transactional(async (tx) => {
    const db = kysely(tx);
    const balanceNow = () => db.selectFrom('organization').select('creditBalance').where('id', '=', entry.organizationId).executeTakeFirst();
    const inserted = await db
      .insertInto('credit_ledger')
      .values({
        id: newId(),
        organization: entry.organizationId,
        delta: entry.delta,
        reason: entry.reason,
        refType: entry.refType ?? null,
        refId: entry.refId ?? null,
        idempotencyKey: entry.idempotencyKey,
        createdAt: sql`now()`,
      })
      .onConflict((oc) => oc.column('idempotencyKey').doNothing())
      .returning('id')
      .execute();
    if (inserted.length === 0) return { applied: false, balance: Number((await balanceNow())?.creditBalance ?? 0) };
    const updated = await db
      .updateTable('organization')
      .set((eb) => ({ creditBalance: eb('creditBalance', '+', entry.delta) }))
      .where('id', '=', entry.organizationId)
      .where((eb) => eb(eb('creditBalance', '+', entry.delta), '>=', 0))
      .returning('creditBalance')
      .executeTakeFirst();
    if (!updated) {
      const org = await balanceNow();
      if (!org) throw new Error(`organization ${entry.organizationId} does not exist`);
      throw new InsufficientCreditsError(Number(org.creditBalance));
    }
    return { applied: true, balance: Number(updated.creditBalance) };
  });
  if (result.applied) creditsMoved.inc({ direction: entry.delta < 0 ? 'charged' : 'granted' }, Math.abs(entry.delta));
  return result;
}

/** The organization's balance: the cached sum its ledger rows move (see `applyCredits`). */
export async function creditBalance(em: EntityManager, organizationId: string): Promise<number> {
  const org = await em.findOne(Organization, { id: organizationId }, { fields: ['creditBalance'] });
  return org?.creditBalance ?? 0;
}

/** Ledger entries, newest first (ids are time-ordered UUIDv7). */
export async function pageCreditLedger(em: EntityManager, organizationId: string, offset: number, limit: number) {
  const [rows, total] = await em.findAndCount(
    CreditLedgerEntry,
    { organization: organizationId },
    { orderBy: { id: 'desc' }, offset, limit },
  );
  return { rows, total };
}
