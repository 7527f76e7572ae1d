import { deleteLeadOf, getLeadOf, updateLeadOf } from '../../lists/service.ts';
import { organizationId } from '../middleware/session.ts';
import { type Audience, createRouter, sessionAudience } from '../router.ts';
import { uuidParam, json } from '../schemas/common.ts';
import { LeadSchema, LeadUpdateSchema, toLeadDto } from '../schemas/lead.ts';
import { requestEm } from '../middleware/request-context.ts';

const LeadParams = uuidParam('leadId');

/** One lead's routes, as the dashboard and integrations share them. */
export const leadRoutesFor = (audience: Audience) =>
  createRouter()
    .openapi(
      audience.route('leads:read', {
        method: 'get',
        path: '/{leadId}',
        tags: [audience.tag('leads')],
        summary: 'One lead',
        request: { params: LeadParams },
        responses: { 200: { description: 'The lead', ...json(LeadSchema) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => c.json(toLeadDto(await getLeadOf(requestEm(c), organizationId(c), c.req.valid('param').leadId)), 200),
    )
    .openapi(
      audience.route('leads:write', {
        method: 'patch',
        path: '/{leadId}',
        tags: [audience.tag('leads')],
        summary: 'Change fields of a lead',
        request: { params: LeadParams, body: { required: true, ...json(LeadUpdateSchema) } },
        responses: { 200: { description: 'The lead', ...json(LeadSchema) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) =>
        c.json(
          toLeadDto(await updateLeadOf(requestEm(c), organizationId(c), c.req.valid('param').leadId, c.req.valid('json'))),
          200,
        ),
    )
    .openapi(
      audience.route('leads:write', {
        method: 'delete',
        path: '/{leadId}',
        tags: [audience.tag('leads')],
        summary: 'Delete a lead',
        request: { params: LeadParams },
        responses: { 204: { description: 'Deleted' } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        await deleteLeadOf(requestEm(c), organizationId(c), c.req.valid('param').leadId);
        return c.body(null, 204);
      },
    );

export const leadRoutes = leadRoutesFor(sessionAudience);
