import { z } from 'zod';
import { normalizeEmail } from './email.ts';
import { normalizePhone } from './phone.ts';
import { normalizeProfileUrl } from './profile-url.ts';

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
  .meta({ description: 'Accepted whatever its syntax; the verifier judges it', example: 'jane@acme.com' });

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
      .meta({ example: 'https://www.linkedin.com/in/jane-doe' }),
    workEmail: emailField,
    personalEmail: emailField,
    phone: text(50)
      .transform((v) => (v ? (normalizePhone(v) ?? v) : null))
      .meta({ description: 'Normalized to E.164 when parseable, kept as given otherwise', example: '+14155550123' }),
  })
  .strict()
  .meta({ id: 'LeadInput' });
export type LeadInput = z.output<typeof LeadInputSchema>;

