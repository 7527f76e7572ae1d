import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from './env.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { authRoutes } from './routes/auth.ts';
import { creditRoutes } from './routes/credits.ts';
import { bulkEnrichmentRoutesFor, enrichmentRoutes, enrichOneRoutesFor } from './routes/enrichment.ts';
import { externalLeadRoutes } from './routes/external-leads.ts';
import { findEmailRoutesFor } from './routes/find-email.ts';
import { healthRoutes } from './routes/health.ts';
import { leadRoutes } from './routes/leads.ts';
import { listRoutes, listRoutesFor } from './routes/lists.ts';
import { keyAudience, sessionAudience } from './router.ts';
import { scrapeRoutes } from './routes/scrape.ts';
import { settingsRoutes } from './routes/settings.ts';
import { verificationJobRoutesFor, verificationRoutes } from './routes/verification.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { verifyRoutesFor } from './routes/verify.ts';
import { outcomeRoutes } from './routes/outcomes.ts';
import { organizationRoutes } from './routes/organization.ts';
import { usageRoutes } from './routes/usage.ts';

/**
 * Mounts every documented route. The app serves them, and the OpenAPI document (openapi.ts) is built from a
 * bare app mounting the same ones, so the document needs no database, Temporal or configuration.
 */
export function mountApi(app: OpenAPIHono<AppEnv>) {
  app.route('/', healthRoutes);
  app.route('/api/auth', authRoutes);
  app.route('/api/lists', listRoutes);
  app.route('/api/leads', leadRoutes);
  app.route('/api/verification', verifyRoutesFor(sessionAudience));
  app.route('/api/verification', verificationRoutes);
  app.route('/api/scrape/jobs', scrapeRoutes);
  app.route('/api/enrichment', enrichmentRoutes);
  app.route('/api/credits', creditRoutes);
  app.route('/api/usage', usageRoutes);
  app.route('/api/settings', settingsRoutes);
  app.route('/api/api-keys', apiKeyRoutes);
  app.route('/api/organization', organizationRoutes);
  app.route('/api/external/lists', listRoutesFor(keyAudience));
  app.route('/api/external/leads', externalLeadRoutes);
  app.route('/api/external', verifyRoutesFor(keyAudience));
  app.route('/api/external/verification', verificationJobRoutesFor(keyAudience));
  app.route('/api/external', enrichOneRoutesFor(keyAudience));
  app.route('/api/external', findEmailRoutesFor(keyAudience));
  app.route('/api/external/enrichment', bulkEnrichmentRoutesFor(keyAudience));
  app.route('/api/webhooks', webhookRoutes);
  app.route('/api/outcomes', outcomeRoutes);
}
