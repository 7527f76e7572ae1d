import { z } from '@hono/zod-openapi';
import { EMAIL_TEMPLATES } from '../../domain/email-templates.ts';
import { EMAIL_RESULTS } from '../../domain/lead.ts';
import { companyDomainOf } from '../../domain/scrape.ts';

const name = (example: string) => z.string().trim().min(1).max(200).openapi({ example });

export const FindEmailRequestSchema = z
  .object({
    firstName: name('José'),
    lastName: name('García'),
    domain: z
      .string()
      .trim()
      .max(2048)
      .transform((v, ctx) => {
        const domain = companyDomainOf(v.toLowerCase());
        if (!domain) {
          ctx.addIssue({ code: 'custom', message: 'must be a domain like acme.com (a website URL is accepted)' });
          return z.NEVER;
        }
        return domain;
      })
      .openapi({ example: 'acme.com' }),
  })
  .strict()
  .openapi('FindEmailRequest');

const TriedSchema = z
  .object({
    email: z.string(),
    template: z.enum(EMAIL_TEMPLATES),
    via: z.enum(['rcpt', 'directory']).openapi({ description: "Asked by RCPT in the domain's mail session, or of the Microsoft directory" }),
    result: z.enum(EMAIL_RESULTS),
    reply: z.string().openapi({ description: 'The reply that decided (`250 2.1.5 Ok`, `550 5.1.1 …`, `IfExistsResult 1`), or why none came' }),
  })
  .openapi('FindEmailCandidate');

export const FindEmailResultSchema = z
  .object({
    email: z.string().nullable().openapi({ description: 'null when nothing was found' }),
    result: z.enum(['Valid', 'Catch-All']).nullable(),
    catchAllScore: z.number().int().min(0).max(10).nullable().openapi({ description: 'The score (CONTRACT §12) of a `Catch-All` guess; null otherwise' }),
    template: z.enum(EMAIL_TEMPLATES).nullable().openapi({ description: 'The template that made `email`' }),
    candidatesTried: z.array(TriedSchema).openapi({ description: 'The candidates asked, in order, each with its reply (none for a guess on a catch-all domain)' }),
    creditsUsed: z.number().int().openapi({ description: 'The work-email price when `result` is `Valid`, else 0' }),
  })
  .openapi('FindEmailResult');

export const FindEmailPendingSchema = z
  .object({ findId: z.uuid().openapi({ description: 'Read the result at `GET …/find-email/{findId}`' }) })
  .openapi('FindEmailPending');
