import { creditBalance, pageCreditLedger } from '../../accounts/credits.ts';
import { organizationId } from '../middleware/session.ts';
import { createRouter, sessionRoute } from '../router.ts';
import { offsetOf, pageOf, PageQuerySchema, paginated, json } from '../schemas/common.ts';
import { BalanceSchema, LedgerEntrySchema, toLedgerEntryDto } from '../schemas/credits.ts';
import { requestEm } from '../middleware/request-context.ts';

export const creditRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/',
      tags: ['credits'],
      summary: 'The organization’s credit balance',
      responses: { 200: { description: 'The balance', ...json(BalanceSchema) } },
    }),
    async (c) => c.json({ balance: await creditBalance(requestEm(c), organizationId(c)) }, 200),
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/ledger',
      tags: ['credits'],
      summary: 'Credit grants and charges, newest first; they sum to the balance',
      request: { query: PageQuerySchema },
      responses: { 200: { description: 'A page of ledger entries', ...json(pageOf(LedgerEntrySchema)) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const page = c.req.valid('query');
      const { rows, total } = await pageCreditLedger(requestEm(c), organizationId(c), offsetOf(page), page.limit);
      return c.json(paginated(rows.map(toLedgerEntryDto), total, page), 200);
    },
  );
