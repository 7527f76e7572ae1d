/**
 * The answer of a find (CONTRACT §14), declared once: as the routes show it (its schema is the OpenAPI component)
 * and, inferred from it, as the finder's workflow, activities and storage pass it. Workflows import its types only.
 */
import { z } from '@hono/zod-openapi';
import { EMAIL_TEMPLATES } from './email-templates.ts';
import { EMAIL_RESULTS } from './lead.ts';

/** One candidate as it was asked: by RCPT (its reply) or the Microsoft directory (its IfExistsResult). */
export const TriedCandidateSchema = z
  .object({
    email: z.string(),
    template: z.enum(EMAIL_TEMPLATES),
    via: z.enum(['rcpt', 'directory']).openapi({ description: "Asked by RCPT in the domain's mail session, or of the Microsoft directory" }),
    result: z.enum(EMAIL_RESULTS),
    reply: z.string().openapi({ description: 'The reply that decided (`250 2.1.5 Ok`, `550 5.1.1 …`, `IfExistsResult 1`), or why none came' }),
  })
  .openapi('FindEmailCandidate');
export type TriedCandidate = z.infer<typeof TriedCandidateSchema>;

export const FindAnswerSchema = z
  .object({
    email: z.string().nullable().openapi({ description: 'null when nothing was found' }),
    result: z.enum(['Valid', 'Catch-All']).nullable(),
    catchAllScore: z.number().int().min(0).max(10).nullable().openapi({ description: 'The score (CONTRACT §12) of a `Catch-All` guess; null otherwise' }),
    template: z.enum(EMAIL_TEMPLATES).nullable().openapi({ description: 'The template that made `email`' }),
    candidatesTried: z.array(TriedCandidateSchema).openapi({ description: 'The candidates asked, in order, each with its reply (none for a guess on a catch-all domain)' }),
    creditsUsed: z.number().int().openapi({ description: 'The work-email price when `result` is `Valid`, else 0' }),
  })
  .openapi('FindEmailResult');
export type FindAnswer = z.infer<typeof FindAnswerSchema>;
