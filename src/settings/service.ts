/** An organization's enrichment providers: waterfall order, enabled flags and its own (sealed) keys. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import { secretBoxFromConfig } from '../crypto/secret-box.ts';
import { loadProviderSettings, type ProviderSettingUpdate, saveProviderSettings, type StoredProviderSetting } from '../db/repos/enrichment-settings.ts';

export type ProviderSettingRecord = StoredProviderSetting;

export function providerSettings(em: EntityManager, organizationId: string): Promise<ProviderSettingRecord[]> {
  return loadProviderSettings(em, organizationId);
}

/** One transaction: the waterfall is renumbered as a whole, so a half-applied change would leave it out of order. */
export function updateProviderSettings(
  em: EntityManager,
  config: Pick<Config, 'SECRETS_KEY' | 'NODE_ENV'>,
  organizationId: string,
  updates: readonly ProviderSettingUpdate[],
): Promise<ProviderSettingRecord[]> {
  const box = secretBoxFromConfig(config);
  return em.transactional((tx) => saveProviderSettings(tx, organizationId, updates, box));
}
