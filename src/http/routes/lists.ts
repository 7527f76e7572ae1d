import { z } from '@hono/zod-openapi';
import { importLeadCsv } from '../../csv/import-leads.ts';
import { findLeadsByIds, insertLeads, pageLeads } from '../../db/repos/leads.ts';
import { createList, deleteList, getList, leadCounts, pageLists, updateList } from '../../db/repos/lists.ts';
import { ApiError } from '../errors.ts';
import { organizationId } from '../middleware/session.ts';
import { streamMultipart } from '../multipart.ts';
import { createRouter, sessionRoute } from '../router.ts';
import { offsetOf, pageOf, PageQuerySchema, paginated, uuidParam } from '../schemas/common.ts';
import { BulkLeadsResult, BulkLeadsSchema, LeadFilterSchema, LeadSchema, toLeadDto } from '../schemas/lead.ts';
import { ListInputSchema, ListSchema, ListUpdateSchema, toListDto } from '../schemas/list.ts';

const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });
const ListParams = uuidParam('listId');
const ImportResult = z
  .object({
    created: z.number().int(),
    skipped: z.number().int(),
    errors: z.array(z.object({ row: z.number().int(), message: z.string() })),
  })
  .openapi('LeadImportResult');

export const listRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/',
      tags: ['lists'],
      summary: 'Create a list',
      request: { body: { required: true, ...json(ListInputSchema) } },
      responses: { 201: { description: 'Created', ...json(ListSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const list = await createList(c.var.em, organizationId(c), c.req.valid('json'));
      return c.json(toListDto(list, 0), 201);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/',
      tags: ['lists'],
      summary: 'Lists of the organization, newest first',
      request: { query: PageQuerySchema },
      responses: { 200: { description: 'A page of lists', ...json(pageOf(ListSchema)) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const page = c.req.valid('query');
      const { rows, total } = await pageLists(c.var.em, organizationId(c), offsetOf(page), page.limit);
      const counts = await leadCounts(c.var.em, rows.map((l) => l.id));
      return c.json(paginated(rows.map((l) => toListDto(l, counts.get(l.id) ?? 0)), total, page), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/{listId}',
      tags: ['lists'],
      summary: 'One list',
      request: { params: ListParams },
      responses: { 200: { description: 'The list', ...json(ListSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const list = await getList(c.var.em, organizationId(c), c.req.valid('param').listId);
      const counts = await leadCounts(c.var.em, [list.id]);
      return c.json(toListDto(list, counts.get(list.id) ?? 0), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'patch',
      path: '/{listId}',
      tags: ['lists'],
      summary: 'Rename or describe a list',
      request: { params: ListParams, body: { required: true, ...json(ListUpdateSchema) } },
      responses: { 200: { description: 'The list', ...json(ListSchema) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { em } = c.var;
      const list = await updateList(em, await getList(em, organizationId(c), c.req.valid('param').listId), c.req.valid('json'));
      const counts = await leadCounts(em, [list.id]);
      return c.json(toListDto(list, counts.get(list.id) ?? 0), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'delete',
      path: '/{listId}',
      tags: ['lists'],
      summary: 'Delete a list and its leads',
      request: { params: ListParams },
      responses: { 204: { description: 'Deleted' } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      await deleteList(c.var.em, await getList(c.var.em, organizationId(c), c.req.valid('param').listId));
      return c.body(null, 204);
    },
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/{listId}/leads',
      tags: ['leads'],
      summary: "A list's leads, oldest first",
      request: { params: ListParams, query: PageQuerySchema.extend(LeadFilterSchema.shape) },
      responses: { 200: { description: 'A page of leads', ...json(pageOf(LeadSchema)) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { em } = c.var;
      const query = c.req.valid('query');
      const list = await getList(em, organizationId(c), c.req.valid('param').listId);
      const { rows, total } = await pageLeads(em, organizationId(c), { listId: list.id, emailStatus: query.emailStatus }, offsetOf(query), query.limit);
      return c.json(paginated(rows.map(toLeadDto), total, query), 200);
    },
  )
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/{listId}/leads',
      tags: ['leads'],
      summary: 'Add 1 to 1000 leads to a list',
      request: { params: ListParams, body: { required: true, ...json(BulkLeadsSchema) } },
      responses: { 201: { description: 'Created', ...json(BulkLeadsResult) } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const { em } = c.var;
      const list = await getList(em, organizationId(c), c.req.valid('param').listId);
      const ids = await em.transactional((tx) => insertLeads(tx, organizationId(c), list.id, c.req.valid('json').leads, 'manual'));
      const leads = await findLeadsByIds(em, ids);
      return c.json({ created: ids.length, leads: leads.map(toLeadDto) }, 201);
    },
  )
  .openapi(
    sessionRoute({
      method: 'post',
      path: '/{listId}/leads/import',
      tags: ['leads'],
      summary: 'Import leads from a CSV file (multipart `file`)',
      description:
        'UTF-8 CSV, optional BOM, `,` or `;`. Header names as in lead input, snake_case and common aliases accepted. Invalid rows are skipped and reported.',
      request: {
        params: ListParams,
        body: {
          required: true,
          content: {
            'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary' } } } },
          },
        },
      },
      responses: { 201: { description: 'Imported', ...json(ImportResult) } },
      errors: ['validation_error', 'not_found', 'payload_too_large', 'unsupported_media_type', 'unprocessable'],
    }),
    async (c) => {
      const { em } = c.var;
      const list = await getList(em, organizationId(c), c.req.valid('param').listId);
      const { result } = await streamMultipart(c.req.raw, {
        fileField: 'file',
        maxFileBytes: c.var.deps.config.SCRAPE_MAX_FILE_BYTES,
        consume: (file) => importLeadCsv(em, organizationId(c), list.id, file.stream),
      });
      if (!result) throw new ApiError('unprocessable', 'No `file` field in the upload', { reason: 'no_file' });
      return c.json(result, 201);
    },
  );
