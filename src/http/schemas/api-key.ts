import { z } from '@hono/zod-openapi';
import type { StoredApiKey } from '../../auth/api-keys.ts';
import type { Scope } from '../../domain/scopes.ts';
import { ALL_SCOPES } from '../../domain/scopes.ts';
import { iso, Timestamp } from '../../domain/time.ts';

export const ScopeSchema = z.enum(ALL_SCOPES).openapi('ApiKeyScope');

export const ApiKeyInputSchema = z
  .object({
    name: z.string().trim().min(1).max(200).openapi({ example: 'Dialer' }),
    scopes: z
      .array(ScopeSchema)
      .min(1)
      .max(ALL_SCOPES.length)
      .transform((scopes) => [...new Set(scopes)])
      .openapi({ example: ['leads:read'] }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .nullish()
      .transform((v) => (v ? new Date(v) : null))
      .refine((d) => d === null || d.getTime() > Date.now(), 'must be in the future')
      .openapi({ description: 'Optional; after it the key answers 401', example: '2027-01-01T00:00:00.000Z' }),
  })
  .strict()
  .openapi('ApiKeyInput');

export const ApiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    scopes: z.array(ScopeSchema),
    start: z.string().openapi({ description: 'The first 8 characters of the key, to recognize it', example: 'lek_4fQz' }),
    createdAt: Timestamp,
    expiresAt: Timestamp.nullable(),
    lastUsedAt: Timestamp.nullable().openapi({ description: 'Refreshed at most once a minute' }),
    revokedAt: Timestamp.nullable(),
  })
  .openapi('ApiKey');

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({ description: 'The secret; shown in this response only, never again' }),
}).openapi('CreatedApiKey');

export const toApiKeyDto = (k: StoredApiKey): z.infer<typeof ApiKeySchema> => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes as Scope[],
  start: k.start,
  createdAt: k.createdAt.toISOString(),
  expiresAt: iso(k.expiresAt),
  lastUsedAt: iso(k.lastUsedAt),
  revokedAt: iso(k.revokedAt),
});
