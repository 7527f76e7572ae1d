import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import { loadProviderSettings } from '../db/repos/enrichment-settings.ts';
import type { EnrichmentProviderId } from '../domain/enrichment.ts';
import type { EnrichmentProvider } from '../providers/enrichment/index.ts';
import type { SmtpProber } from '../smtp/prober.ts';
import { EmailChecker } from './engine-email-checker.ts';
import { buildChain, type ChainLink } from './engine-provider-chain.ts';

/** The long-lived clients enrichment needs (one set per worker process). */
export interface EnrichmentClients {
  config: Config;
  providers: Readonly<Record<EnrichmentProviderId, EnrichmentProvider>>;
  prober: Pick<SmtpProber, 'probeDomain'>;
  secrets: SecretBox;
}

export interface Waterfall {
  chain: ChainLink[];
  checker: EmailChecker;
}

/** The organization's provider chain and a fresh email checker (Hunter's verifier as second opinion when Hunter is in the chain). */
export async function prepareWaterfall(em: EntityManager, clients: EnrichmentClients, organizationId: string): Promise<Waterfall> {
  const settings = await loadProviderSettings(em, organizationId);
  const chain = buildChain(organizationId, settings, clients.providers, clients.config, clients.secrets);
  const hunter = chain.find((link) => link.provider.name === 'hunter');
  return { chain, checker: new EmailChecker(clients.prober, hunter) };
}
