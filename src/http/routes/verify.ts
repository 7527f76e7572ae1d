import { verifyAddress } from '../../single-check/service.ts';
import { type Audience, createRouter } from '../router.ts';
import { json } from '../schemas/common.ts';
import { toVerifyDto, VerifyInputSchema, VerifyResultSchema } from '../schemas/verify.ts';
import { jobContext } from '../middleware/request-context.ts';

/**
 * `POST …/verify`: one address in real time (CONTRACT §9.1), for integrations (`/api/external/verify`) and the
 * dashboard (`/api/verification/verify`, CONTRACT §15); the job routes are verification.ts's.
 */
export const verifyRoutesFor = (audience: Audience) =>
  createRouter().openapi(
    audience.route('verification:write', {
      method: 'post',
      path: '/verify',
      tags: [audience.tag('verification')],
      summary: 'Verify one address in real time',
      description:
        'The same SMTP check as a job, through the same connection limits, answered within `timeoutMs` plus one second. ' +
        'A final answer the organization got within VERIFY_RESULT_CACHE_TTL is replayed (`cached: true`); an answer that ' +
        'could not be final in time is `Unknown` with `retryAfterSeconds`. Free.',
      request: { body: { required: true, ...json(VerifyInputSchema) } },
      responses: { 200: { description: 'The verdict', ...json(VerifyResultSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const { check, cached } = await verifyAddress(jobContext(c), c.req.valid('json'));
      return c.json(toVerifyDto(check, cached), 200);
    },
  );
