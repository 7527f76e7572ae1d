import { z } from '@hono/zod-openapi';
import type { IList } from '../../db/entities/list.ts';
import { Timestamp } from './common.ts';

export const ListInputSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    description: z.string().trim().max(5000).nullish(),
  })
  .strict()
  .openapi('ListInput');

export const ListUpdateSchema = ListInputSchema.partial().openapi('ListUpdate');

export const ListSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    leadCount: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi('List');

export const toListDto = (l: Pick<IList, 'id' | 'name' | 'description' | 'createdAt' | 'updatedAt'>, leadCount: number): z.infer<typeof ListSchema> => ({
  id: l.id,
  name: l.name,
  description: l.description ?? null,
  leadCount,
  createdAt: l.createdAt.toISOString(),
  updatedAt: l.updatedAt.toISOString(),
});
