import { z } from '@hono/zod-openapi';
import { type ScrapeItemRow, ScrapeJobSchema } from '../../scrape/views.ts';
import { SCRAPE_ITEM_STATUSES, SCRAPE_JOB_STATUSES } from '../../domain/scrape.ts';
import { PageQuerySchema } from './common.ts';

export const ScrapeItemSchema = z
  .object({
    id: z.uuid(),
    rowNumber: z.number().int().openapi({ description: '1-based data row of the uploaded file (blank lines are not rows)' }),
    status: z.enum(SCRAPE_ITEM_STATUSES),
    company: z.string().nullable(),
    role: z.string().nullable(),
    networkUrl: z.string().nullable().openapi({ example: 'https://www.linkedin.com/in/jane-doe' }),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    domain: z.string().nullable(),
    error: z.string().nullable().openapi({ description: 'Why the item failed; null unless `failed`' }),
  })
  .openapi('ScrapeItem');

export const ScrapeJobDetailSchema = ScrapeJobSchema.extend({ items: z.array(ScrapeItemSchema) }).openapi('ScrapeJobDetail');

export const toScrapeItemDto = (item: ScrapeItemRow): z.infer<typeof ScrapeItemSchema> => ({
  id: item.id,
  rowNumber: item.rowNumber,
  status: item.status,
  company: item.company,
  role: item.role,
  networkUrl: item.networkUrl,
  firstName: item.firstName,
  lastName: item.lastName,
  domain: item.domain,
  error: item.error,
});

export const ScrapeCreatedSchema = z.object({ job: ScrapeJobSchema, message: z.string() }).openapi('ScrapeJobCreated');

export const ScrapeListQuerySchema = PageQuerySchema.extend({
  status: z.enum(SCRAPE_JOB_STATUSES).optional(),
});

const booleanText = z
  .enum(['true', 'false'])
  .transform((v) => v === 'true')
  .optional();

export const ScrapeDetailQuerySchema = z.object({
  itemsAfterRow: z.coerce
    .number()
    .int()
    .min(0)
    .optional()
    .openapi({ description: 'Only items after this row number (keyset paging of the items; default: from the first)' }),
  itemsLimit: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .openapi({ description: 'At most this many items (default: all of them)' }),
});

export const ScrapeDownloadQuerySchema = z.object({
  foundOnly: booleanText.openapi({ type: 'boolean', description: 'Only items with a found profile URL' }),
});

export const ScrapeSyncResultSchema = z
  .object({ success: z.boolean(), listId: z.uuid(), leadsCount: z.number().int(), message: z.string() })
  .openapi('ScrapeSyncResult');
