import { z } from '@hono/zod-openapi';
import { issueApiKey, listApiKeys, revokeApiKey } from '../../auth/api-keys.ts';
import { organizationId } from '../middleware/session.ts';
import { createRouter, sessionRoute } from '../router.ts';
import { ApiKeyInputSchema, ApiKeySchema, CreatedApiKeySchema, toApiKeyDto } from '../schemas/api-key.ts';
import { uuidParam, json } from '../schemas/common.ts';
import { requestEm } from '../middleware/request-context.ts';

export const apiKeyRoutes = createRouter()
  .openapi(
    sessionRoute({
      ownerOnly: true,
      method: 'post',
      path: '/',
      tags: ['api-keys'],
      summary: 'Create an API key; the secret is in this response only',
      request: { body: { required: true, ...json(ApiKeyInputSchema) } },
      responses: { 201: { description: 'Created', ...json(CreatedApiKeySchema) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const input = c.req.valid('json');
      const { apiKey, key } = await issueApiKey(requestEm(c), {
        organizationId: organizationId(c),
        userId: c.var.principal.userId,
        name: input.name,
        scopes: input.scopes,
        expiresAt: input.expiresAt,
      });
      return c.json({ ...toApiKeyDto(apiKey), key }, 201);
    },
  )
  .openapi(
    sessionRoute({
      ownerOnly: true,
      method: 'get',
      path: '/',
      tags: ['api-keys'],
      summary: "The organization's API keys, newest first, revoked ones included (never the secret)",
      responses: { 200: { description: 'The keys', ...json(z.object({ data: z.array(ApiKeySchema) })) } },
    }),
    async (c) => c.json({ data: (await listApiKeys(requestEm(c), organizationId(c))).map(toApiKeyDto) }, 200),
  )
  .openapi(
    sessionRoute({
      ownerOnly: true,
      method: 'delete',
      path: '/{id}',
      tags: ['api-keys'],
      summary: 'Revoke an API key; it is refused from the next request on',
      request: { params: uuidParam('id') },
      responses: { 204: { description: 'Revoked' } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      c.var.deps.keys.forget(await revokeApiKey(requestEm(c), organizationId(c), c.req.valid('param').id));
      return c.body(null, 204);
    },
  );
