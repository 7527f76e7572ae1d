import { z } from '@hono/zod-openapi';
import { importLeadCsv } from '../../csv/import-leads.ts';
import { getList } from '../../db/repos/lists.ts';
import {
  addLeadsToList,
  createListDto,
  deleteListOf,
  getListDto,
  pageListDtos,
  pageListLeadDtos,
  updateListDto,
} from '../handlers/lists.ts';
import { organizationId } from '../middleware/session.ts';
import { streamMultipart } from '../multipart.ts';
import { type Audience, createRouter, sessionAudience, sessionRoute } from '../router.ts';
import { pageOf, PageQuerySchema, uuidParam, json, uploadBody } from '../schemas/common.ts';
import { BulkLeadsResult, BulkLeadsSchema, LeadSchema, ListLeadsQuerySchema } from '../schemas/lead.ts';
import { ListInputSchema, ListSchema, ListUpdateSchema } from '../schemas/list.ts';
import { requestEm } from '../middleware/request-context.ts';

const ListParams = uuidParam('listId');
const ImportResult = z
  .object({
    created: z.number().int(),
    skipped: z.number().int(),
    errors: z.array(z.object({ row: z.number().int(), message: z.string() })),
  })
  .openapi('LeadImportResult');

/** The list routes, and a list's leads, as the dashboard and integrations share them. */
export const listRoutesFor = (audience: Audience) =>
  createRouter()
    .openapi(
      audience.route('lists:write', {
        method: 'post',
        path: '/',
        tags: [audience.tag('lists')],
        summary: 'Create a list',
        request: { body: { required: true, ...json(ListInputSchema) } },
        responses: { 201: { description: 'Created', ...json(ListSchema) } },
        errors: ['validation_error'],
      }),
      async (c) => c.json(await createListDto(requestEm(c), organizationId(c), c.req.valid('json')), 201),
    )
    .openapi(
      audience.route('lists:read', {
        method: 'get',
        path: '/',
        tags: [audience.tag('lists')],
        summary: 'Lists of the organization, newest first',
        request: { query: PageQuerySchema },
        responses: { 200: { description: 'A page of lists', ...json(pageOf(ListSchema)) } },
        errors: ['validation_error'],
      }),
      async (c) =>
        c.json(await pageListDtos(c.get('deps').pool, organizationId(c), c.req.valid('query')), 200),
    )
    .openapi(
      audience.route('lists:read', {
        method: 'get',
        path: '/{listId}',
        tags: [audience.tag('lists')],
        summary: 'One list',
        request: { params: ListParams },
        responses: { 200: { description: 'The list', ...json(ListSchema) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => c.json(await getListDto(requestEm(c), organizationId(c), c.req.valid('param').listId), 200),
    )
    .openapi(
      audience.route('lists:write', {
        method: 'patch',
        path: '/{listId}',
        tags: [audience.tag('lists')],
        summary: 'Rename or describe a list',
        request: { params: ListParams, body: { required: true, ...json(ListUpdateSchema) } },
        responses: { 200: { description: 'The list', ...json(ListSchema) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) =>
        c.json(
          await updateListDto(requestEm(c), organizationId(c), c.req.valid('param').listId, c.req.valid('json')),
          200,
        ),
    )
    .openapi(
      audience.route('lists:write', {
        method: 'delete',
        path: '/{listId}',
        tags: [audience.tag('lists')],
        summary: 'Delete a list and its leads',
        request: { params: ListParams },
        responses: { 204: { description: 'Deleted' } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        await deleteListOf(requestEm(c), organizationId(c), c.req.valid('param').listId);
        return c.body(null, 204);
      },
    )
    .openapi(
      audience.route(['lists:read', 'leads:read'], {
        method: 'get',
        path: '/{listId}/leads',
        tags: [audience.tag('leads')],
        summary: "A list's leads, oldest first",
        request: { params: ListParams, query: PageQuerySchema.extend(ListLeadsQuerySchema.shape) },
        responses: { 200: { description: 'A page of leads', ...json(pageOf(LeadSchema)) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) =>
        c.json(
          await pageListLeadDtos(
            requestEm(c),
            c.get('deps').pool,
            organizationId(c),
            c.req.valid('param').listId,
            c.req.valid('query'),
          ),
          200,
        ),
    )
    .openapi(
      audience.route('leads:write', {
        method: 'post',
        path: '/{listId}/leads',
        idempotent: true,
        tags: [audience.tag('leads')],
        summary: `Add 1 to 1000 leads to a list (source \`${audience.leadSource}\`)`,
        request: { params: ListParams, body: { required: true, ...json(BulkLeadsSchema) } },
        responses: { 201: { description: 'Created', ...json(BulkLeadsResult) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) =>
        c.json(
          await addLeadsToList(
            requestEm(c),
            organizationId(c),
            c.req.valid('param').listId,
            c.req.valid('json').leads,
            audience.leadSource,
          ),
          201,
        ),
    );

export const listRoutes = listRoutesFor(sessionAudience).openapi(
  sessionRoute({
    method: 'post',
    path: '/{listId}/leads/import',
    idempotent: true,
    tags: ['leads'],
    summary: 'Import leads from a CSV file (multipart `file`)',
    description:
      'UTF-8 CSV, optional BOM, `,` or `;`. Header names as in lead input, snake_case and common aliases accepted. Invalid rows are skipped and reported.',
    request: {
      params: ListParams,
      body: uploadBody(),
    },
    responses: { 201: { description: 'Imported', ...json(ImportResult) } },
    errors: ['validation_error', 'not_found', 'payload_too_large', 'unsupported_media_type', 'unprocessable'],
  }),
  async (c) => {
    const em = requestEm(c);
    const list = await getList(em, organizationId(c), c.req.valid('param').listId);
    const { result } = await streamMultipart(c.req.raw, {
      fileField: 'file',
      maxFileBytes: c.var.deps.config.SCRAPE_MAX_FILE_BYTES,
      consume: (file) =>
        importLeadCsv(em, organizationId(c), list.id, file.stream, c.var.deps.config.SCRAPE_MAX_ROWS),
    });
    return c.json(result, 201);
  },
);
