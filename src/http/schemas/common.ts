import { z } from '@hono/zod-openapi';

export const PageQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1).openapi({ example: 1 }),
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ example: 20 }),
});
export type PageQuery = z.infer<typeof PageQuerySchema>;

export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), total: z.number().int(), page: z.number().int(), limit: z.number().int(), totalPages: z.number().int() });

export function paginated<T>(data: T[], total: number, { page, limit }: PageQuery) {
  return { data, total, page, limit, totalPages: Math.ceil(total / limit) };
}

export const offsetOf = ({ page, limit }: PageQuery) => (page - 1) * limit;

export const uuidParam = <K extends string>(name: K) =>
  z.object({ [name]: z.uuid().openapi({ param: { name, in: 'path' } }) } as Record<K, z.ZodUUID>);


/** A JSON request body or response entry of a route declaration. */
export const json = <T extends z.ZodType>(schema: T) => ({ content: { 'application/json': { schema } } });

/** A multipart upload body: a required CSV `file` and the given optional text fields. */
export const uploadBody = (fields: Record<string, Record<string, unknown>> = {}) => ({
  required: true,
  content: {
    'multipart/form-data': {
      schema: { type: 'object' as const, required: ['file'], properties: { file: { type: 'string' as const, format: 'binary' }, ...fields } },
    },
  },
});
