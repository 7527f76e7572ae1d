import { z } from '@hono/zod-openapi';
import type { LedgerEntryRecord } from '../../accounts/credits.ts';
import { Timestamp } from '../../domain/time.ts';

export const BalanceSchema = z.object({ balance: z.number().int() }).openapi('CreditBalance');

export const LedgerEntrySchema = z
  .object({
    id: z.uuid(),
    delta: z.number().int().openapi({ description: 'Negative for charges, positive for grants' }),
    reason: z.string(),
    refType: z.string().nullable(),
    refId: z.string().nullable(),
    createdAt: Timestamp,
  })
  .openapi('CreditLedgerEntry');

export const toLedgerEntryDto = (e: LedgerEntryRecord): z.infer<typeof LedgerEntrySchema> => ({
  id: e.id,
  delta: e.delta,
  reason: e.reason,
  refType: e.refType ?? null,
  refId: e.refId ?? null,
  createdAt: e.createdAt.toISOString(),
});
