import { z } from '@hono/zod-openapi';
import { BULK_STATUSES, ENRICHMENT_FIELDS } from '../../domain/enrichment.ts';
import { normalizeProfileUrl } from '../../domain/profile-url.ts';
import { EnrichmentFieldSchema } from '../../enrichment/views.ts';

export const EnrichRequestSchema = z
  .object({
    networkUrl: z
      .string()
      .trim()
      .max(2048)
      .transform((v, ctx) => {
        const url = normalizeProfileUrl(v);
        if (!url) {
          ctx.addIssue({ code: 'custom', message: 'must be a profile URL like https://www.linkedin.com/in/<slug>' });
          return z.NEVER;
        }
        return url;
      })
      .openapi({ example: 'https://www.linkedin.com/in/jane-doe' }),
  })
  .strict()
  .openapi('EnrichRequest');

const nullableText = z.string().nullable();

export const EnrichedProfileSchema = z
  .object({
    networkUrl: z.string(),
    firstName: nullableText.optional(),
    lastName: nullableText.optional(),
    title: nullableText.optional(),
    company: nullableText.optional(),
    workEmail: nullableText.optional(),
    personalEmail: nullableText.optional(),
    phone: nullableText.optional().openapi({ description: 'E.164', example: '+14155550123' }),
  })
  .openapi('EnrichedProfile', { description: 'Only `networkUrl` when the person was not found; every field (null when unknown) otherwise' });

export const EnrichResultSchema = z
  .object({
    success: z.boolean().openapi({ description: 'The providers found the person (even if no datum was verified or affordable)' }),
    profile: EnrichedProfileSchema,
    creditsUsed: z.number().int(),
    withheld: z.array(EnrichmentFieldSchema).openapi({ description: 'Verified data found but not delivered: the balance could not pay for it' }),
  })
  .openapi('EnrichResult');

export const BulkEnrichRequestSchema = z
  .object({
    listId: z.uuid(),
    fields: z
      .array(EnrichmentFieldSchema)
      .min(1)
      .max(ENRICHMENT_FIELDS.length)
      .optional()
      .transform((fields) => ENRICHMENT_FIELDS.filter((field) => !fields || fields.includes(field)))
      .openapi({ description: 'Default: all three', example: ['workEmail', 'phone'] }),
  })
  .strict()
  .openapi('BulkEnrichRequest');

export const BulkCreatedSchema = z
  .object({
    jobId: z.uuid(),
    status: z.enum(BULK_STATUSES),
    totalLeads: z.number().int(),
    estimatedCredits: z.number().int().openapi({ description: 'Upper bound: leads × credits of the requested fields' }),
  })
  .openapi('BulkEnrichmentCreated');
