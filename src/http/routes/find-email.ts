import { findEmailAddress, findEmailResult } from '../../finder/service.ts';
import { jobContext } from '../middleware/request-context.ts';
import { type Audience, createRouter } from '../router.ts';
import { json, uuidParam } from '../schemas/common.ts';
import { FindAnswerSchema } from '../../domain/find-answer.ts';
import { FindEmailPendingSchema, FindEmailRequestSchema } from '../schemas/find-email.ts';

const PENDING = 'Not known yet: the find waits out greylisting (durably, in its workflow); read it again later';

/** The email finder (CONTRACT §14), for the dashboard (`/api/enrichment`) and integrations (`/api/external`). */
export const findEmailRoutesFor = (audience: Audience) =>
  createRouter()
    .openapi(
      audience.route('enrichment:write', {
        method: 'post',
        path: '/find-email',
        idempotent: true,
        tags: [audience.tag('enrichment')],
        summary: "Find a person's work email from their names and company domain",
        description:
          "Candidates from the names, ordered by the domain's learned templates, asked of its mail host in one SMTP session " +
          'until the first Valid (at most FINDER_MAX_CANDIDATES); on a domain that accepts every address, the Microsoft directory ' +
          'where that is on, else the best candidate as `Catch-All` with its score. Charges the work-email price only for a ' +
          '`Valid` address. A find that must wait out greylisting answers 202 with its `findId`.',
        request: { body: { required: true, ...json(FindEmailRequestSchema) } },
        responses: {
          200: { description: 'The find', ...json(FindAnswerSchema) },
          202: { description: PENDING, ...json(FindEmailPendingSchema) },
        },
        errors: ['validation_error', 'insufficient_credits'],
      }),
      async (c) => {
        const found = await findEmailAddress(jobContext(c), c.req.valid('json'));
        return found.status === 200 ? c.json(found.answer, 200) : c.json({ findId: found.findId }, 202);
      },
    )
    .openapi(
      audience.route('enrichment:write', {
        method: 'get',
        path: '/find-email/{findId}',
        tags: [audience.tag('enrichment')],
        summary: 'The result of a find answered 202',
        request: { params: uuidParam('findId') },
        responses: {
          200: { description: 'The find', ...json(FindAnswerSchema) },
          202: { description: PENDING, ...json(FindEmailPendingSchema) },
        },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        const { findId } = c.req.valid('param');
        const answer = await findEmailResult(jobContext(c), findId);
        return answer ? c.json(answer, 200) : c.json({ findId }, 202);
      },
    );
