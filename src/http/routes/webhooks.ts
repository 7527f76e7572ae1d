import { z } from '@hono/zod-openapi';
import { WebhookUrlError } from '../../webhooks/address-guard.ts';
import { endpointsOf, pageEndpointDeliveries, registerEndpoint, removeEndpoint, retryDelivery } from '../../webhooks/endpoints.ts';
import { ApiError } from '../../errors.ts';
import { organizationId } from '../middleware/session.ts';
import { createRouter, sessionOrKeyRoute } from '../router.ts';
import { offsetOf, pageOf, paginated, PageQuerySchema, uuidParam, json } from '../schemas/common.ts';
import {
  toDeliveryDto,
  toEndpointDto,
  WebhookDeliverySchema,
  WebhookEndpointCreatedSchema,
  WebhookEndpointInputSchema,
  WebhookEndpointSchema,
} from '../schemas/webhook.ts';
import { requestEm } from '../middleware/request-context.ts';

/** `/api/webhooks`: endpoint management, by session or by a key with `webhooks:write` (CONTRACT §9.3). */
export const webhookRoutes = createRouter()
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      ownerOnly: true,
      method: 'post',
      path: '/',
      tags: ['webhooks'],
      summary: 'Register a webhook endpoint',
      description:
        'The URL must be https:// (unless WEBHOOK_ALLOW_INSECURE) and must not resolve to a loopback or private address (unless WEBHOOK_ALLOW_PRIVATE); link-local and metadata addresses are always refused. The `secret` appears in this response only.',
      request: { body: { required: true, ...json(WebhookEndpointInputSchema) } },
      responses: { 201: { description: 'Registered', ...json(WebhookEndpointCreatedSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      try {
        const { endpoint, secret } = await registerEndpoint(requestEm(c), c.var.deps.config, organizationId(c), c.req.valid('json'));
        return c.json({ ...toEndpointDto(endpoint), secret }, 201);
      } catch (error) {
        if (!(error instanceof WebhookUrlError)) throw error;
        throw new ApiError('validation_error', 'Invalid webhook URL', [{ path: 'json.url', message: error.message }]);
      }
    },
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      ownerOnly: true,
      method: 'get',
      path: '/',
      tags: ['webhooks'],
      summary: 'Webhook endpoints of the organization, newest first (never their secrets)',
      responses: { 200: { description: 'Endpoints', ...json(z.object({ data: z.array(WebhookEndpointSchema) })) } },
    }),
    async (c) => c.json({ data: (await endpointsOf(requestEm(c), organizationId(c))).map(toEndpointDto) }, 200),
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      ownerOnly: true,
      method: 'delete',
      path: '/{id}',
      tags: ['webhooks'],
      summary: 'Remove a webhook endpoint',
      request: { params: uuidParam('id') },
      responses: { 204: { description: 'Removed' } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      await removeEndpoint(requestEm(c), organizationId(c), c.req.valid('param').id);
      return c.body(null, 204);
    },
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      ownerOnly: true,
      method: 'get',
      path: '/{id}/deliveries',
      tags: ['webhooks'],
      summary: "The endpoint's delivery log, newest first",
      request: { params: uuidParam('id'), query: PageQuerySchema },
      responses: { 200: { description: 'A page of deliveries', ...json(pageOf(WebhookDeliverySchema)) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const query = c.req.valid('query');
      const { rows, total } = await pageEndpointDeliveries(requestEm(c), organizationId(c), c.req.valid('param').id, offsetOf(query), query.limit);
      return c.json(paginated(rows.map(toDeliveryDto), total, query), 200);
    },
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      ownerOnly: true,
      method: 'post',
      path: '/{id}/deliveries/{deliveryId}/retry',
      tags: ['webhooks'],
      summary: 'Send a delivery again',
      description:
        'Sets the delivery `pending` and attempts it at once (a pending one skips the rest of its wait); a failing attempt is retried on the usual schedule. Refused (409) once the endpoint is disabled.',
      request: { params: uuidParam('id').extend(uuidParam('deliveryId').shape) },
      responses: { 202: { description: 'Accepted: the attempt follows', ...json(WebhookDeliverySchema) } },
      errors: ['validation_error', 'not_found', 'invalid_state'],
    }),
    async (c) => {
      const { id, deliveryId } = c.req.valid('param');
      const { config, temporal } = c.var.deps;
      return c.json(toDeliveryDto(await retryDelivery(requestEm(c), temporal, config, organizationId(c), id, deliveryId)), 202);
    },
  );
