import { addLeadsToList, createListDto, deleteListOf, getListDto, pageListDtos, pageListLeadDtos, updateListDto } from '../handlers/lists.ts';
import { organizationId } from '../middleware/session.ts';
import { apiKeyRoute, createRouter } from '../router.ts';
import { pageOf, PageQuerySchema, uuidParam, json } from '../schemas/common.ts';
import { BulkLeadsResult, BulkLeadsSchema, LeadFilterSchema, LeadSchema } from '../schemas/lead.ts';
import { ListInputSchema, ListSchema, ListUpdateSchema } from '../schemas/list.ts';

const ListParams = uuidParam('listId');

/** `/api/external/lists`: the session list routes' behaviour, for an API key's organization. */
export const externalListRoutes = createRouter()
  .openapi(
    apiKeyRoute('lists:read', {
      method: 'get',
      path: '/',
      tags: ['external'],
      summary: "The key's organization's lists, newest first",
      request: { query: PageQuerySchema },
      responses: { 200: { description: 'A page of lists', ...json(pageOf(ListSchema)) } },
      errors: ['validation_error'],
    }),
    async (c) => c.json(await pageListDtos(c.get('deps').pool, organizationId(c), c.req.valid('query')), 200),
  )
  .openapi(
    apiKeyRoute('lists:read', {
      method: 'get',
      path: '/{listId}',
      tags: ['external'],
      summary: 'One list',
      request: { params: ListParams },
      responses: { 200: { description: 'The list', ...json(ListSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => c.json(await getListDto(c.var.em, organizationId(c), c.req.valid('param').listId), 200),
  )
  .openapi(
    apiKeyRoute(['lists:read', 'leads:read'], {
      method: 'get',
      path: '/{listId}/leads',
      tags: ['external'],
      summary: "A list's leads, oldest first",
      request: { params: ListParams, query: PageQuerySchema.extend(LeadFilterSchema.shape) },
      responses: { 200: { description: 'A page of leads', ...json(pageOf(LeadSchema)) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => c.json(await pageListLeadDtos(c.var.em, c.get('deps').pool, organizationId(c), c.req.valid('param').listId, c.req.valid('query')), 200),
  )
  .openapi(
    apiKeyRoute('lists:write', {
      method: 'post',
      path: '/',
      tags: ['external'],
      summary: 'Create a list',
      request: { body: { required: true, ...json(ListInputSchema) } },
      responses: { 201: { description: 'Created', ...json(ListSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => c.json(await createListDto(c.var.em, organizationId(c), c.req.valid('json')), 201),
  )
  .openapi(
    apiKeyRoute('lists:write', {
      method: 'patch',
      path: '/{listId}',
      tags: ['external'],
      summary: 'Rename or describe a list',
      request: { params: ListParams, body: { required: true, ...json(ListUpdateSchema) } },
      responses: { 200: { description: 'The list', ...json(ListSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => c.json(await updateListDto(c.var.em, organizationId(c), c.req.valid('param').listId, c.req.valid('json')), 200),
  )
  .openapi(
    apiKeyRoute('lists:write', {
      method: 'delete',
      path: '/{listId}',
      tags: ['external'],
      summary: 'Delete a list and its leads',
      request: { params: ListParams },
      responses: { 204: { description: 'Deleted' } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      await deleteListOf(c.var.em, organizationId(c), c.req.valid('param').listId);
      return c.body(null, 204);
    },
  )
  .openapi(
    apiKeyRoute('leads:write', {
      method: 'post',
      path: '/{listId}/leads',
      idempotent: true,
      tags: ['external'],
      summary: 'Add 1 to 1000 leads to a list (source `api`)',
      request: { params: ListParams, body: { required: true, ...json(BulkLeadsSchema) } },
      responses: { 201: { description: 'Created', ...json(BulkLeadsResult) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => c.json(await addLeadsToList(c.var.em, organizationId(c), c.req.valid('param').listId, c.req.valid('json').leads, 'api'), 201),
  );
