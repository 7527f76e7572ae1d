import { z } from '@hono/zod-openapi';
import type { Config } from '../../config.ts';
import { ENRICHMENT_PROVIDERS, PROVIDER_KINDS } from '../../domain/enrichment.ts';
import { platformKey } from '../../enrichment/engine-provider-chain.ts';
import type { ProviderSettingRecord } from '../../settings/service.ts';

export const ProviderSettingSchema = z
  .object({
    provider: z.enum(ENRICHMENT_PROVIDERS),
    kind: z.enum(Object.values(PROVIDER_KINDS) as [string, ...string[]]),
    enabled: z.boolean(),
    priority: z.number().int().openapi({ description: 'Waterfall position: lower goes first' }),
    hasApiKey: z.boolean().openapi({ description: 'The organization stored its own key (never returned)' }),
    hasPlatformKey: z.boolean().openapi({ description: 'A platform key is configured and used when the organization has none' }),
  })
  .openapi('EnrichmentProviderSetting');

export const ProviderSettingsSchema = z.object({ providers: z.array(ProviderSettingSchema) }).openapi('EnrichmentProviderSettings');

export const ProviderSettingsUpdateSchema = z
  .object({
    providers: z
      .array(
        z
          .object({
            provider: z.enum(ENRICHMENT_PROVIDERS),
            enabled: z.boolean().optional(),
            priority: z
              .number()
              .int()
              .min(1)
              .max(100)
              .optional()
              .openapi({ description: 'Moves the provider to this position of the waterfall (1 = first); the others keep their order' }),
            apiKey: z
              .string()
              .trim()
              .min(1)
              .max(500)
              .nullable()
              .optional()
              .openapi({ description: 'The organization’s own key, stored encrypted; null removes it (the platform key applies again)' }),
          })
          .strict(),
      )
      .min(1)
      .max(ENRICHMENT_PROVIDERS.length)
      .refine((list) => new Set(list.map((p) => p.provider)).size === list.length, 'each provider at most once')
      .refine((list) => !list.some((p) => p.provider === 'finder' && p.apiKey !== undefined), 'the finder takes no API key'),
  })
  .strict()
  .openapi('EnrichmentProviderSettingsUpdate');

export const toProviderSettingsDto = (settings: readonly ProviderSettingRecord[], config: Config): z.infer<typeof ProviderSettingsSchema> => ({
  providers: settings.map((s) => ({
    provider: s.provider,
    kind: PROVIDER_KINDS[s.provider],
    enabled: s.enabled,
    priority: s.priority,
    hasApiKey: s.apiKeyCiphertext !== null,
    // The finder needs no key: it is as usable as a provider whose platform key is set.
    hasPlatformKey: s.provider === 'finder' || Boolean(platformKey(config, s.provider)),
  })),
});
