import { importOutcomes, MAX_OUTCOME_FILE_BYTES, recordOutcomes } from '../../outcomes/service.ts';
import { organizationId } from '../middleware/session.ts';
import { requestEm } from '../middleware/request-context.ts';
import { streamMultipart } from '../multipart.ts';
import { BULK_BODY_BYTES, createRouter, sessionOrKeyRoute } from '../router.ts';
import { json, uploadBody } from '../schemas/common.ts';
import { checkedOutcomes, OutcomeImportResultSchema, OutcomesAcceptedSchema, OutcomesInputSchema } from '../schemas/outcomes.ts';

/** `/api/outcomes`: what happened when the organization sent (CONTRACT §12), by session or a key with `verification:write`. */
export const outcomeRoutes = createRouter()
  .openapi(
    sessionOrKeyRoute('verification:write', {
      method: 'post',
      path: '/',
      idempotent: true,
      maxBodyBytes: BULK_BODY_BYTES,
      tags: ['outcomes'],
      summary: 'Report send outcomes (1 to 10,000)',
      description:
        'One outcome per address and organization: a report replaces the stored one unless it is older (by `at`). Later Catch-All scores of these addresses and the calibration read them.',
      request: { body: { required: true, ...json(OutcomesInputSchema) } },
      responses: { 200: { description: 'Stored', ...json(OutcomesAcceptedSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => c.json({ accepted: await recordOutcomes(requestEm(c), organizationId(c), checkedOutcomes(c.req.valid('json'))) }, 200),
  )
  .openapi(
    sessionOrKeyRoute('verification:write', {
      method: 'post',
      path: '/import',
      idempotent: true,
      tags: ['outcomes'],
      summary: 'Report send outcomes from a CSV file (multipart `file`)',
      description: `UTF-8 CSV with a header row naming \`email,outcome\` and optionally \`bounce_type,at\`; at most ${MAX_OUTCOME_FILE_BYTES} bytes. Rows that cannot be used are skipped and listed with the reason; a file that is not a usable CSV stores nothing (422).`,
      request: { body: uploadBody() },
      responses: { 200: { description: 'Stored', ...json(OutcomeImportResultSchema) } },
      errors: ['validation_error', 'payload_too_large', 'unsupported_media_type', 'unprocessable'],
    }),
    async (c) => {
      const em = requestEm(c);
      const orgId = organizationId(c);
      const result = await streamMultipart(c.req.raw, {
        fileField: 'file',
        maxFileBytes: MAX_OUTCOME_FILE_BYTES,
        consume: (file) => importOutcomes(em, orgId, file.stream),
      });
      return c.json(result, 200);
    },
  );
