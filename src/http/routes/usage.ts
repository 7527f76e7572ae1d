import { z } from '@hono/zod-openapi';
import { usageByMonth } from '../../accounts/usage.ts';
import { requestEm } from '../middleware/request-context.ts';
import { organizationId } from '../middleware/session.ts';
import { createRouter, sessionRoute } from '../router.ts';
import { json } from '../schemas/common.ts';
import { MonthUsageSchema } from '../schemas/usage.ts';

const MAX_MONTHS = 120;
const Month = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month as YYYY-MM')
  .openapi({ example: '2026-11' });

const monthIndex = (month: string) => Number(month.slice(0, 4)) * 12 + Number(month.slice(5, 7)) - 1;
const monthOf = (index: number) => `${String(Math.floor(index / 12)).padStart(4, '0')}-${String((index % 12) + 1).padStart(2, '0')}`;

const UsageQuerySchema = z
  .object({
    from: Month.optional().openapi({ description: 'First month (default: 11 months before `to`)' }),
    to: Month.optional().openapi({ description: 'Last month, included (default: the current month, UTC)' }),
  })
  .transform((q) => {
    const now = new Date();
    const to = q.to ?? monthOf(now.getUTCFullYear() * 12 + now.getUTCMonth());
    return { to, from: q.from ?? monthOf(monthIndex(to) - 11) };
  })
  .refine((q) => monthIndex(q.from) <= monthIndex(q.to), { message: 'from must not be after to', path: ['from'] })
  .refine((q) => monthIndex(q.to) - monthIndex(q.from) < MAX_MONTHS, { message: `at most ${MAX_MONTHS} months at once`, path: ['from'] });

/** `/api/usage`: what the organization spent, month by month (CONTRACT §15). */
export const usageRoutes = createRouter().openapi(
  sessionRoute({
    method: 'get',
    path: '/',
    tags: ['usage'],
    summary: 'Spend by month: credits by datum, verification dollars, jobs by kind',
    description: `Every month from \`from\` to \`to\` (UTC), oldest first, months without activity included; at most ${MAX_MONTHS} months.`,
    request: { query: UsageQuerySchema },
    responses: { 200: { description: 'Usage', ...json(z.object({ months: z.array(MonthUsageSchema) }).openapi('Usage')) } },
    errors: ['validation_error'],
  }),
  async (c) => {
    const { from, to } = c.req.valid('query');
    return c.json({ months: await usageByMonth(requestEm(c), organizationId(c), from, to) }, 200);
  },
);
