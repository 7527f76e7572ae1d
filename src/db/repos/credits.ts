import type { EntityManager } from '@mikro-orm/postgresql';
import { creditsMoved } from '../../metrics.ts';
import { newId } from '../entities/common.ts';

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
    const conn = tx;
    const inserted = await conn.execute(
      `insert into credit_ledger (id, organization_id, delta, reason, ref_type, ref_id, idempotency_key, created_at)
       values (?, ?, ?, ?, ?, ?, ?, now()) on conflict (idempotency_key) do nothing returning id`,
      [newId(), entry.organizationId, entry.delta, entry.reason, entry.refType ?? null, entry.refId ?? null, entry.idempotencyKey],
    );
    if (inserted.length === 0) {
      const [org] = await conn.execute(`select credit_balance from organization where id = ?`, [entry.organizationId]);
      return { applied: false, balance: Number(org?.credit_balance ?? 0) };
    }
    const updated = await conn.execute(
      `update organization set credit_balance = credit_balance + ? where id = ? and credit_balance + ? >= 0 returning credit_balance`,
      [entry.delta, entry.organizationId, entry.delta],
    );
    if (updated.length === 0) {
      const [org] = await conn.execute(`select credit_balance from organization where id = ?`, [entry.organizationId]);
      if (!org) throw new Error(`organization ${entry.organizationId} does not exist`);
      throw new InsufficientCreditsError(Number(org.credit_balance));
    }
    return { applied: true, balance: Number(updated[0]!.credit_balance) };
  });
  if (result.applied) creditsMoved.inc({ direction: entry.delta < 0 ? 'charged' : 'granted' }, Math.abs(entry.delta));
  return result;
}
