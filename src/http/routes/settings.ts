import { providerSettings, updateProviderSettings } from '../../settings/service.ts';
import { organizationId } from '../middleware/session.ts';
import { createRouter, sessionRoute } from '../router.ts';
import { ProviderSettingsSchema, ProviderSettingsUpdateSchema, toProviderSettingsDto } from '../schemas/settings.ts';
import { json } from '../schemas/common.ts';
import { requestEm } from '../middleware/request-context.ts';
import { z } from '@hono/zod-openapi';
import { Egress } from '../schemas/egress.ts';

const EgressSettings = z.object({
  egress: z.array(Egress).openapi({ description: 'Empty when no worker runs in the process that answers (ROLE=api)' }),
});

export const settingsRoutes = createRouter()
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/egress',
      tags: ['settings'],
      summary: "The SMTP egresses' health: blocklists, identity, quarantines (CONTRACT §13)",
      responses: { 200: { description: 'Each egress as this process’s worker last checked it', ...json(EgressSettings) } },
    }),
    (c) => c.json({ egress: c.var.deps.smtpEgress?.egressReport() ?? [] }, 200),
  )
  .openapi(
    sessionRoute({
      method: 'get',
      path: '/enrichment-providers',
      tags: ['settings'],
      summary: 'Enrichment providers in waterfall order (keys are never returned)',
      responses: { 200: { description: 'The providers', ...json(ProviderSettingsSchema) } },
    }),
    async (c) => c.json(toProviderSettingsDto(await providerSettings(requestEm(c), organizationId(c)), c.var.deps.config), 200),
  )
  .openapi(
    sessionRoute({
      method: 'put',
      ownerOnly: true,
      path: '/enrichment-providers',
      tags: ['settings'],
      summary: 'Set the waterfall order, enabled flags and the organization’s own provider keys',
      description:
        'Providers not listed, and properties left out, keep their values. A priority moves the provider to that position. ' +
        'Keys are stored encrypted (AES-256-GCM) and never returned.',
      request: { body: { required: true, ...json(ProviderSettingsUpdateSchema) } },
      responses: { 200: { description: 'The providers after the change', ...json(ProviderSettingsSchema) } },
      errors: ['validation_error'],
    }),
    async (c) => {
      const { config } = c.var.deps;
      const settings = await updateProviderSettings(requestEm(c), config, organizationId(c), c.req.valid('json').providers);
      return c.json(toProviderSettingsDto(settings, config), 200);
    },
  );
