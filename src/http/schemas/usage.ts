// `GET /api/usage` (CONTRACT §15): one entry per month.
import { z } from '@hono/zod-openapi';

export const MonthUsageSchema = z
  .object({
    month: z.string().openapi({ example: '2026-11' }),
    credits: z
      .object({ workEmail: z.number().int(), personalEmail: z.number().int(), phone: z.number().int(), total: z.number().int() })
      .openapi({ description: 'Credits charged (ledger debits) by datum; `total` is every debit of the month' }),
    verificationDollars: z.number().openapi({ description: 'Spent on the verification provider (micro-dollar exact, 6 decimals)', example: 0.0015 }),
    jobs: z
      .object({ verification: z.number().int(), scrape: z.number().int(), enrichment: z.number().int() })
      .openapi({ description: 'Jobs created, by kind' }),
  })
  .openapi('MonthUsage');
