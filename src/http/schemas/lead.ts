import { z } from '@hono/zod-openapi';
import type { ILead } from '../../db/entities/lead.ts';
import { normalizeEmail } from '../../domain/email.ts';
import { EMAIL_RESULTS, LEAD_SOURCES } from '../../domain/lead.ts';
import { normalizePhone } from '../../domain/phone.ts';
import { normalizeProfileUrl } from '../../domain/profile-url.ts';
import { iso, Timestamp } from './common.ts';

const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .nullish()
    .transform((v) => (v ? v : null));

const emailField = z
  .string()
  .trim()
  .max(254)
  .nullish()
  .transform((v) => (v ? normalizeEmail(v) : null))
  .openapi({ description: 'Accepted whatever its syntax; the verifier judges it', example: 'jane@acme.com' });

/** The fields a caller may set on a lead; normalization happens here, once, for every entry point. */
export const LeadInputSchema = z
  .object({
    firstName: text(200),
    lastName: text(200),
    title: text(300),
    company: text(300),
    companyDomain: text(253).transform((v) => v?.toLowerCase() ?? null),
    email: emailField,
    networkUrl: z
      .string()
      .trim()
      .max(500)
      .nullish()
      .transform((v, ctx) => {
        if (!v) return null;
        const url = normalizeProfileUrl(v);
        if (!url) ctx.addIssue({ code: 'custom', message: 'must be a profile URL like https://www.linkedin.com/in/<slug>' });
        return url;
      })
      .openapi({ example: 'https://www.linkedin.com/in/jane-doe' }),
    workEmail: emailField,
    personalEmail: emailField,
    phone: text(50)
      .transform((v) => (v ? (normalizePhone(v) ?? v) : null))
      .openapi({ description: 'Normalized to E.164 when parseable, kept as given otherwise', example: '+14155550123' }),
  })
  .strict()
  .openapi('LeadInput');
export type LeadInput = z.output<typeof LeadInputSchema>;

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

export const toLeadDto = (l: ILead): LeadDto => ({
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

/** Body and answer of the bulk-add routes (session and external). */
export const BulkLeadsSchema = z.object({ leads: z.array(LeadInputSchema).min(1).max(1000) }).openapi('BulkLeads');
export const BulkLeadsResult = z.object({ created: z.number().int(), leads: z.array(LeadSchema) }).openapi('BulkLeadsResult');

export const LeadFilterSchema = z.object({
  emailStatus: z.enum(EMAIL_RESULTS).optional(),
});
