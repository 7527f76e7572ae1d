import type { Config } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { apiKeyContext, type StoredProviderSetting } from '../db/repos/enrichment-settings.ts';
import type { EnrichmentProviderId, KeyedProviderId } from '../domain/enrichment.ts';
import type { EnrichmentProvider } from '../providers/enrichment/index.ts';

/** A provider of the waterfall with the key to call it with. */
export interface ChainLink {
  provider: EnrichmentProvider;
  apiKey: string;
}

const PLATFORM_KEYS = {
  pdl: 'PDL_API_KEY',
  hunter: 'HUNTER_API_KEY',
  lusha: 'LUSHA_API_KEY',
} as const satisfies Record<KeyedProviderId, keyof Config>;

type PlatformKeys = Pick<Config, (typeof PLATFORM_KEYS)[KeyedProviderId]>;

/** The platform's key for `provider`; undefined for the finder, which needs none. */
export const platformKey = (config: PlatformKeys, provider: EnrichmentProviderId) =>
  provider === 'finder' ? undefined : config[PLATFORM_KEYS[provider]];

/**
 * The organization's waterfall: enabled providers in its order, each with the organization's own key,
 * else the platform's. A provider with neither key cannot be called and is left out; the finder needs none.
 */
export function buildChain(
  organizationId: string,
  settings: readonly StoredProviderSetting[],
  providers: Readonly<Record<EnrichmentProviderId, EnrichmentProvider>>,
  config: PlatformKeys,
  box: SecretBox,
): ChainLink[] {
  const chain: ChainLink[] = [];
  for (const setting of settings) {
    if (!setting.enabled) continue;
    if (setting.provider === 'finder') {
      chain.push({ provider: providers.finder, apiKey: '' });
      continue;
    }
    const apiKey = setting.apiKeyCiphertext
      ? box.decrypt(setting.apiKeyCiphertext, apiKeyContext(organizationId, setting.provider))
      : platformKey(config, setting.provider);
    if (apiKey) chain.push({ provider: providers[setting.provider], apiKey });
  }
  return chain;
}
