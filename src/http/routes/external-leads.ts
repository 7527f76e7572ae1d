import { z } from '@hono/zod-openapi';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { normalizeEmail } from '../../domain/email.ts';
import { phoneForLookup } from '../../domain/phone-lookup.ts';
import { pageLeads } from '../../lists/service.ts';
import { organizationId } from '../middleware/session.ts';
import { apiKeyRoute, createRouter, keyAudience } from '../router.ts';
import { leadRoutesFor } from './leads.ts';
import { offsetOf, pageOf, PageQuerySchema, paginated, json } from '../schemas/common.ts';
import { type LeadDto, LeadFilterSchema, LeadSchema } from '../schemas/lead.ts';

const LeadLookupSchema = PageQuerySchema.extend(LeadFilterSchema.shape).extend({
  listId: z.uuid().optional(),
  email: z
    .string()
    .trim()
    .min(1)
    .max(254)
    .optional()
    .openapi({ description: 'Exact address; the domain is matched case-insensitively' }),
  phone: z.string().trim().min(1).max(64).optional().openapi({
    description:
      'Any common format (`+1 415-555-2671`, `14155552671`, `0044 20 7946 0958`, `tel:+1...`); normalized to E.164 before matching. National numbers need `country`.',
    example: '+1 (415) 555-2671',
  }),
  country: z
    .string()
    .trim()
    .toUpperCase()
    .refine(isSupportedCountry, 'must be an ISO 3166-1 alpha-2 country code')
    .optional()
    .openapi({ description: 'How to read a national `phone` (no `+`), e.g. `US`', example: 'US' }),
});

/** `/api/external/leads`: look-ups for integrations (a dialer finds a caller by phone), and one lead's routes. */
export const externalLeadRoutes = createRouter()
  .openapi(
    apiKeyRoute('leads:read', {
      method: 'get',
      path: '/',
      tags: ['external-leads'],
      summary: "The key's organization's leads, oldest first, filtered by list, email or phone",
      request: { query: LeadLookupSchema },
      responses: { 200: { description: 'A page of leads', ...json(pageOf(LeadSchema)) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const query = c.req.valid('query');
      const filter = {
        listId: query.listId,
        emailStatus: query.emailStatus,
        email: query.email === undefined ? undefined : normalizeEmail(query.email),
        phone:
          query.phone === undefined
            ? undefined
            : phoneForLookup(query.phone, query.country as CountryCode | undefined),
      };
      const { rows, total } = await pageLeads<LeadDto>(c.get('deps').pool, organizationId(c), filter, offsetOf(query), query.limit);
      return c.json(paginated(rows, total, query), 200);
    },
  )
  .route('/', leadRoutesFor(keyAudience));
