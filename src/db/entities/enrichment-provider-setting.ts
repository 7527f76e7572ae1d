import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ENRICHMENT_PROVIDERS } from '../../domain/enrichment.ts';
import { createdAtProperty, idProperty, updatedAtProperty } from './common.ts';
import { Organization } from './organization.ts';

/** An organization's choice for one provider; providers without a row use the defaults (enabled, default order, platform key). */
export const EnrichmentProviderSetting = defineEntity({
  name: 'EnrichmentProviderSetting',
  uniques: [{ properties: ['organization', 'provider'] }],
  properties: {
    id: idProperty(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    provider: p.enum(ENRICHMENT_PROVIDERS),
    enabled: p.boolean(),
    priority: p.integer(),
    /** The organization's own key, sealed by SecretBox (AES-256-GCM); never leaves the server in clear. */
    apiKeyCiphertext: p.text().nullable().hidden(),
    createdAt: createdAtProperty(),
    updatedAt: updatedAtProperty(),
  },
});
export type IEnrichmentProviderSetting = InferEntity<typeof EnrichmentProviderSetting>;
