import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookEndpoint } from '../db/entities/index.ts';
import type { IWebhookEndpoint } from '../db/entities/webhook-endpoint.ts';
import { notFound } from '../errors.ts';

export async function createEndpoint(
  em: EntityManager,
  input: { organizationId: string; url: string; events: string[]; description: string | null; secretCiphertext: string },
): Promise<IWebhookEndpoint> {
  const endpoint = em.create(WebhookEndpoint, {
    organization: input.organizationId,
    url: input.url,
    events: input.events,
    description: input.description,
    secretCiphertext: input.secretCiphertext,
    disabledAt: null,
  });
  await em.flush();
  return endpoint;
}

export function listEndpoints(em: EntityManager, organizationId: string) {
  return em.find(WebhookEndpoint, { organization: organizationId }, { orderBy: { id: 'desc' } });
}

export async function getEndpoint(em: EntityManager, organizationId: string, id: string): Promise<IWebhookEndpoint> {
  const endpoint = await em.findOne(WebhookEndpoint, { id, organization: organizationId });
  if (!endpoint) throw notFound('Webhook endpoint');
  return endpoint;
}

export async function deleteEndpoint(em: EntityManager, endpoint: IWebhookEndpoint): Promise<void> {
  await em.remove(endpoint).flush();
}
