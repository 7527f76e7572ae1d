import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { createdAtProperty, idProperty } from './common.ts';
import { Organization } from './organization.ts';

/** Append-only: the unique idempotency key is what makes every grant and charge happen exactly once. */
export const CreditLedgerEntry = defineEntity({
  name: 'CreditLedgerEntry',
  tableName: 'credit_ledger',
  indexes: [{ properties: ['organization', 'id'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    delta: p.integer(),
    reason: p.string().length(300),
    refType: p.string().length(50).nullable(),
    refId: p.string().length(200).nullable(),
    idempotencyKey: p.string().length(300).unique(),
    createdAt: createdAtProperty(),
  },
});
export type ICreditLedgerEntry = InferEntity<typeof CreditLedgerEntry>;
