import { randomBytes } from 'node:crypto';
import { z } from '@hono/zod-openapi';
import { secretBoxFromConfig } from '../../crypto/secret-box.ts';
import { pageDeliveries, reopenDelivery } from '../../db/repos/webhook-deliveries.ts';
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints } from '../../db/repos/webhook-endpoints.ts';
import { deliveryWorkflowId, type DeliveryWorkflowInput, retryDeliverySignal } from '../../temporal/webhook-messages.ts';
import { retrySchedule } from '../../webhooks/send.ts';
import { assertDeliverableUrl, WebhookUrlError } from '../../webhooks/address-guard.ts';
import { webhookSecretContext } from '../../webhooks/secret.ts';
import { ApiError, invalidState, notFound } from '../../errors.ts';
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
      const input = c.req.valid('json');
      const { config } = c.var.deps;
      try {
        await assertDeliverableUrl(input.url, { allowInsecure: config.WEBHOOK_ALLOW_INSECURE, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
      } catch (error) {
        if (!(error instanceof WebhookUrlError)) throw error;
        throw new ApiError('validation_error', 'Invalid webhook URL', [{ path: 'json.url', message: error.message }]);
      }
      const orgId = organizationId(c);
      const secret = `whsec_${randomBytes(32).toString('base64')}`;
      const box = secretBoxFromConfig(config);
      // The id is not known before insert, so the seal is bound to the organization (a copied row cannot be read elsewhere).
      const endpoint = await createEndpoint(requestEm(c), {
        organizationId: orgId,
        url: input.url,
        events: input.events,
        description: input.description ?? null,
        secretCiphertext: box.encrypt(secret, webhookSecretContext(orgId)),
      });
      return c.json({ ...toEndpointDto(endpoint), secret }, 201);
    },
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      method: 'get',
      path: '/',
      tags: ['webhooks'],
      summary: 'Webhook endpoints of the organization, newest first (never their secrets)',
      responses: { 200: { description: 'Endpoints', ...json(z.object({ data: z.array(WebhookEndpointSchema) })) } },
    }),
    async (c) => c.json({ data: (await listEndpoints(requestEm(c), organizationId(c))).map(toEndpointDto) }, 200),
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      method: 'delete',
      path: '/{id}',
      tags: ['webhooks'],
      summary: 'Remove a webhook endpoint',
      request: { params: uuidParam('id') },
      responses: { 204: { description: 'Removed' } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      await deleteEndpoint(requestEm(c), await getEndpoint(requestEm(c), organizationId(c), c.req.valid('param').id));
      return c.body(null, 204);
    },
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
      method: 'get',
      path: '/{id}/deliveries',
      tags: ['webhooks'],
      summary: "The endpoint's delivery log, newest first",
      request: { params: uuidParam('id'), query: PageQuerySchema },
      responses: { 200: { description: 'A page of deliveries', ...json(pageOf(WebhookDeliverySchema)) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const endpoint = await getEndpoint(requestEm(c), organizationId(c), c.req.valid('param').id);
      const query = c.req.valid('query');
      const { rows, total } = await pageDeliveries(requestEm(c), endpoint.id, offsetOf(query), query.limit);
      return c.json(paginated(rows.map(toDeliveryDto), total, query), 200);
    },
  )
  .openapi(
    sessionOrKeyRoute('webhooks:write', {
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
      const endpoint = await getEndpoint(requestEm(c), organizationId(c), id);
      if (endpoint.disabledAt) throw invalidState('The endpoint is disabled (a receiver answered 410)', 'disabled');
      const delivery = await reopenDelivery(requestEm(c), endpoint.id, deliveryId);
      if (!delivery) throw notFound('Webhook delivery');
      // Signals the running delivery workflow, or starts a new run when the last one has ended.
      await temporal.workflow.signalWithStart('webhookDeliveryWorkflow', {
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowId: deliveryWorkflowId(delivery.id),
        args: [{ deliveryId: delivery.id, schedule: retrySchedule(config) } satisfies DeliveryWorkflowInput],
        signal: retryDeliverySignal,
        signalArgs: [],
      });
      return c.json(toDeliveryDto(delivery), 202);
    },
  );
