import { z } from '@hono/zod-openapi';
import { EMAIL_RESULTS, LEAD_SOURCES } from '../../domain/lead.ts';
import { LeadInputSchema } from '../../domain/lead-input.ts';
import { ON_DUPLICATE } from '../../domain/lead-duplicates.ts';
import type { LeadRecord } from '../../lists/service.ts';
import { iso, Timestamp } from '../../domain/time.ts';

export const LeadUpdateSchema = LeadInputSchema.partial().openapi('LeadUpdate');

export const LeadSchema = z
  .object({
    id: z.uuid(),
    listId: z.uuid(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    title: z.string().nullable(),
    company: z.string().nullable(),
    companyDomain: z.string().nullable(),
    email: z.string().nullable(),
    networkUrl: z.string().nullable(),
    workEmail: z.string().nullable(),
    personalEmail: z.string().nullable(),
    phone: z.string().nullable(),
    emailStatus: z.enum(EMAIL_RESULTS).nullable(),
    emailVerifiedAt: Timestamp.nullable(),
    source: z.enum(LEAD_SOURCES),
    enrichedAt: Timestamp.nullable(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('Lead');

export type LeadDto = z.infer<typeof LeadSchema>;

export const toLeadDto = (l: LeadRecord): LeadDto => ({
  id: l.id,
  listId: l.list.id,
  firstName: l.firstName ?? null,
  lastName: l.lastName ?? null,
  title: l.title ?? null,
  company: l.company ?? null,
  companyDomain: l.companyDomain ?? null,
  email: l.email ?? null,
  networkUrl: l.networkUrl ?? null,
  workEmail: l.workEmail ?? null,
  personalEmail: l.personalEmail ?? null,
  phone: l.phone ?? null,
  emailStatus: l.emailStatus ?? null,
  emailVerifiedAt: iso(l.emailVerifiedAt),
  source: l.source,
  enrichedAt: iso(l.enrichedAt),
  createdAt: l.createdAt.toISOString(),
  updatedAt: l.updatedAt.toISOString(),
});

export const OnDuplicateSchema = z.enum(ON_DUPLICATE).openapi({
  description:
    'A lead whose email (case-insensitively) or profile URL the list already holds, or an earlier lead of the same request: `skip` it (the default), or `update` fills the existing lead’s empty fields with it',
});

/** Leads left out because the list held them already (or the request did earlier). */
export const DuplicatesSchema = z
  .object({
    count: z.number().int(),
    rows: z.array(z.number().int()).openapi({ description: '1-based positions in `leads`, or 1-based data rows of the file (the header not counted)' }),
  })
  .openapi('LeadDuplicates');

/** Body and answer of the bulk-add routes (session and external). */
export const BulkLeadsSchema = z
  .object({ leads: z.array(LeadInputSchema).min(1).max(1000), onDuplicate: OnDuplicateSchema.optional() })
  .openapi('BulkLeads');
export const BulkLeadsResult = z
  .object({ created: z.number().int(), leads: z.array(LeadSchema).openapi({ description: 'The leads created' }), duplicates: DuplicatesSchema })
  .openapi('BulkLeadsResult');

export const LeadFilterSchema = z.object({
  emailStatus: z.enum(EMAIL_RESULTS).optional(),
});

/** A list's leads as the dashboard searches them. */
export const ListLeadsQuerySchema = LeadFilterSchema.extend({
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'Case-insensitive text in the name, title, company, domain, emails or phone', example: 'acme' }),
});
