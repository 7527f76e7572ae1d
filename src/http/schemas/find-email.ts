import { z } from '@hono/zod-openapi';
import { companyDomainOf } from '../../domain/company-domain.ts';

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

export const FindEmailPendingSchema = z
  .object({ findId: z.uuid().openapi({ description: 'Read the result at `GET …/find-email/{findId}`' }) })
  .openapi('FindEmailPending');
