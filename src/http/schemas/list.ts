import { z } from '@hono/zod-openapi';
import type { CountedList } from '../../lists/service.ts';
import { Timestamp } from '../../domain/time.ts';

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

export const toListDto = ({ list, leadCount }: CountedList): z.infer<typeof ListSchema> => ({
  id: list.id,
  name: list.name,
  description: list.description ?? null,
  leadCount,
  createdAt: list.createdAt.toISOString(),
  updatedAt: list.updatedAt.toISOString(),
});
