import { streamPages } from '../stream-pages.ts';
import { z } from '@hono/zod-openapi';
import {
  addLeadsToList,
  createListOf,
  deleteListOf,
  getListOf,
  leadExport,
  leadImportInto,
  pageLeads,
  pageLists,
  updateListOf,
} from '../../lists/service.ts';
import { organizationId } from '../middleware/session.ts';
import { streamMultipart } from '../multipart.ts';
import { type Audience, BULK_BODY_BYTES, createRouter, sessionAudience, sessionOrKeyRoute, sessionRoute } from '../router.ts';
import { attachmentDisposition, csvLine } from '../../csv/write.ts';
import { offsetOf, pageOf, paginated, PageQuerySchema, uuidParam, json, uploadBody } from '../schemas/common.ts';
import {
  BulkLeadsResult,
  BulkLeadsSchema,
  DuplicatesSchema,
  type LeadDto,
  LeadSchema,
  ListLeadsQuerySchema,
  OnDuplicateSchema,
  toLeadDto,
} from '../schemas/lead.ts';
import { ApiError } from '../../errors.ts';
import { ON_DUPLICATE } from '../../domain/lead-duplicates.ts';
import { snakeCase } from '../../domain/lead.ts';
import { ListInputSchema, ListSchema, ListUpdateSchema, toListDto } from '../schemas/list.ts';
import { requestEm } from '../middleware/request-context.ts';

const ListParams = uuidParam('listId');
const ImportResult = z
  .object({
    created: z.number().int(),
    skipped: z.number().int(),
    errors: z.array(z.object({ row: z.number().int(), message: z.string() })),
    duplicates: DuplicatesSchema,
  })
  .openapi('LeadImportResult');

/** The export's columns: every lead field, in the lead's order, in snake case. */
const EXPORT_FIELDS = Object.keys(LeadSchema.shape) as Array<keyof LeadDto>;
const EXPORT_HEADER = EXPORT_FIELDS.map(snakeCase);

/** The multipart twin of the JSON `onDuplicate`; it must come before the file, which is read as it arrives. */
function onDuplicateField(fields: Readonly<Record<string, string>>) {
  const parsed = OnDuplicateSchema.default('skip').safeParse(fields.onDuplicate);
  if (parsed.success) return parsed.data;
  throw new ApiError('validation_error', 'Invalid request form', [{ path: 'form.onDuplicate', message: `must be one of ${ON_DUPLICATE.join(', ')}` }]);
}

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
      async (c) => c.json(toListDto(await createListOf(requestEm(c), organizationId(c), c.req.valid('json'))), 201),
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
      async (c) => {
        const page = c.req.valid('query');
        const { rows, total } = await pageLists(c.get('deps').pool, organizationId(c), offsetOf(page), page.limit);
        return c.json(paginated(rows, total, page), 200);
      },
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
      async (c) => c.json(toListDto(await getListOf(requestEm(c), organizationId(c), c.req.valid('param').listId)), 200),
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
          toListDto(await updateListOf(requestEm(c), organizationId(c), c.req.valid('param').listId, c.req.valid('json'))),
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
      async (c) => {
        const query = c.req.valid('query');
        const filter = { listId: c.req.valid('param').listId, emailStatus: query.emailStatus, search: query.search };
        const { rows, total } = await pageLeads<LeadDto>(c.get('deps').pool, organizationId(c), filter, offsetOf(query), query.limit);
        return c.json(paginated(rows, total, query), 200);
      },
    )
    .openapi(
      audience.route('leads:write', {
        method: 'post',
        path: '/{listId}/leads',
        idempotent: true,
        maxBodyBytes: BULK_BODY_BYTES,
        tags: [audience.tag('leads')],
        summary: `Add 1 to 1000 leads to a list (source \`${audience.leadSource}\`)`,
        request: { params: ListParams, body: { required: true, ...json(BulkLeadsSchema) } },
        responses: { 201: { description: 'Created', ...json(BulkLeadsResult) } },
        errors: ['validation_error', 'not_found'],
      }),
      async (c) => {
        const { listId } = c.req.valid('param');
        const body = c.req.valid('json');
        const added = await addLeadsToList(requestEm(c), organizationId(c), listId, body.leads, { source: audience.leadSource, onDuplicate: body.onDuplicate ?? 'skip' });
        return c.json({ ...added, leads: added.leads.map(toLeadDto) }, 201);
      },
    );

export const listRoutes = listRoutesFor(sessionAudience).openapi(
  sessionRoute({
    method: 'post',
    path: '/{listId}/leads/import',
    idempotent: true,
    tags: ['leads'],
    summary: 'Import leads from a CSV file (multipart `file`)',
    description:
      'UTF-8 CSV, optional BOM, `,` or `;`. Header names as in lead input, snake_case and common aliases accepted. Invalid rows are skipped and reported. ' +
      'Rows whose lead the list holds already (by email, case-insensitively, or profile URL), or an earlier row holds, are reported in `duplicates`; ' +
      'an `onDuplicate` field sent before the file chooses what happens to them.',
    request: {
      params: ListParams,
      body: uploadBody({ onDuplicate: { type: 'string', enum: [...ON_DUPLICATE], default: 'skip', description: OnDuplicateSchema.description } }),
    },
    responses: { 201: { description: 'Imported', ...json(ImportResult) } },
    errors: ['validation_error', 'not_found', 'payload_too_large', 'unsupported_media_type', 'unprocessable'],
  }),
  async (c) => {
    const { config } = c.var.deps;
    const importLeads = await leadImportInto(requestEm(c), organizationId(c), c.req.valid('param').listId, config.SCRAPE_MAX_ROWS);
    const result = await streamMultipart(c.req.raw, {
      fileField: 'file',
      maxFileBytes: config.SCRAPE_MAX_FILE_BYTES,
      consume: (file) => importLeads(file.stream, onDuplicateField(file.fieldsBefore)),
    });
    return c.json(result, 201);
  },
)
  .openapi(
    sessionOrKeyRoute('lists:read', {
      method: 'get',
      path: '/{listId}/leads/export',
      tags: ['leads'],
      summary: "A list's leads as CSV, oldest first",
      description:
        `One header row, \`${EXPORT_HEADER.join(',')}\`, then one row per lead the filters keep, streamed page by page (any size of list). ` +
        'A session, or an API key with `lists:read`. The file is named after the list.',
      request: { params: ListParams, query: ListLeadsQuerySchema },
      responses: { 200: { description: 'CSV file', content: { 'text/csv': { schema: z.string() } } } },
      errors: ['validation_error', 'not_found'],
    }),
    async (c) => {
      const query = c.req.valid('query');
      const filter = { listId: c.req.valid('param').listId, emailStatus: query.emailStatus, search: query.search };
      const { listName, pages } = await leadExport<LeadDto>(c.get('deps').pool, organizationId(c), filter);
      const body = streamPages(pages, (lead) => csvLine(EXPORT_FIELDS.map((field) => lead[field])), { prefix: csvLine(EXPORT_HEADER) });
      return c.body(body, 200, {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': attachmentDisposition(listName, 'csv'),
      });
    },
  );
