import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { SecretBox } from '../../crypto/secret-box.ts';
import { ENRICHMENT_PROVIDERS, type EnrichmentProviderId } from '../../domain/enrichment.ts';
import { newId } from '../entities/common.ts';
import { EnrichmentProviderSetting } from '../entities/index.ts';
import { kysely } from '../kysely.ts';

/** One provider as an organization has set it up (defaults filled in), key still sealed. */
export interface StoredProviderSetting {
  provider: EnrichmentProviderId;
  enabled: boolean;
  priority: number;
  apiKeyCiphertext: string | null;
}

export interface ProviderSettingUpdate {
  provider: EnrichmentProviderId;
  enabled?: boolean;
  priority?: number;
  /** A new key; null removes the organization's own key (the platform key applies again). */
  apiKey?: string | null;
}

/** Binds a sealed key to its organization and provider: a ciphertext copied elsewhere does not open. */
export const apiKeyContext = (organizationId: string, provider: EnrichmentProviderId) =>
  `enrichment-provider-key:${organizationId}:${provider}`;

const defaultPriority = (provider: EnrichmentProviderId) => ENRICHMENT_PROVIDERS.indexOf(provider) + 1;

/** Waterfall order: priority, then the default order for ties. */
function byOrder(a: StoredProviderSetting, b: StoredProviderSetting) {
  return a.priority - b.priority || defaultPriority(a.provider) - defaultPriority(b.provider);
}

/** Every provider, in the organization's waterfall order; providers never configured are enabled with their default priority. */
export async function loadProviderSettings(em: EntityManager, organizationId: string): Promise<StoredProviderSetting[]> {
  const rows = await em.find(EnrichmentProviderSetting, { organization: organizationId });
  return ENRICHMENT_PROVIDERS.map((provider) => {
    const row = rows.find((r) => r.provider === provider);
    return row
      ? { provider, enabled: row.enabled, priority: row.priority, apiKeyCiphertext: row.apiKeyCiphertext ?? null }
      : { provider, enabled: true, priority: defaultPriority(provider), apiKeyCiphertext: null };
  }).sort(byOrder);
}

/**
 * Applies the updates and returns the new settings. A provider given a priority moves to that position of
 * the waterfall (1 = first) and the others keep their relative order; priorities are stored as the
 * resulting positions 1..n. Unlisted providers and omitted properties keep their values.
 */
export async function saveProviderSettings(
  em: EntityManager,
  organizationId: string,
  updates: readonly ProviderSettingUpdate[],
  box: SecretBox,
): Promise<StoredProviderSetting[]> {
  const current = await loadProviderSettings(em, organizationId);
  const moving = updates.flatMap((u) => (u.priority === undefined ? [] : [{ provider: u.provider, priority: u.priority }]));
  const order = current.map((s) => s.provider).filter((provider) => !moving.some((m) => m.provider === provider));
  for (const m of [...moving].sort((a, b) => a.priority - b.priority)) order.splice(Math.min(m.priority - 1, order.length), 0, m.provider);

  const next = order.map((provider, index): StoredProviderSetting => {
    const setting = current.find((s) => s.provider === provider)!;
    const update = updates.find((u) => u.provider === provider);
    let apiKeyCiphertext = setting.apiKeyCiphertext;
    if (update?.apiKey === null) apiKeyCiphertext = null;
    else if (update?.apiKey !== undefined) apiKeyCiphertext = box.encrypt(update.apiKey, apiKeyContext(organizationId, provider));
    return { provider, enabled: update?.enabled ?? setting.enabled, priority: index + 1, apiKeyCiphertext };
  });
  await kysely(em)
    .insertInto('enrichment_provider_setting')
    .values(
      next.map((setting) => ({
        id: newId(),
        organization: organizationId,
        provider: setting.provider,
        enabled: setting.enabled,
        priority: setting.priority,
        apiKeyCiphertext: setting.apiKeyCiphertext,
        createdAt: sql<Date>`now()`,
        updatedAt: sql<Date>`now()`,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['organization', 'provider']).doUpdateSet((eb) => ({
        enabled: eb.ref('excluded.enabled'),
        priority: eb.ref('excluded.priority'),
        apiKeyCiphertext: eb.ref('excluded.apiKeyCiphertext'),
        updatedAt: sql<Date>`now()`,
      })),
    )
    .execute();
  return next;
}
