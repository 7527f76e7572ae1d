import { verifyAddress } from '../../verify/service.ts';
import { apiKeyRoute, createRouter } from '../router.ts';
import { json } from '../schemas/common.ts';
import { toVerifyDto, VerifyInputSchema, VerifyResultSchema } from '../schemas/verify.ts';
import { jobContext } from '../middleware/request-context.ts';

/** `/api/external/verify`: one address in real time, for integrations (CONTRACT §9.1); the job routes are verification.ts's. */
export const externalVerifyRoutes = createRouter().openapi(
  apiKeyRoute('verification:write', {
    method: 'post',
    path: '/verify',
    tags: ['external-verification'],
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
