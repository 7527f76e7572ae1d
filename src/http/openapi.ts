import { OpenAPIHono } from '@hono/zod-openapi';
import { mountApi } from './api.ts';
import type { AppEnv } from './env.ts';
import { registerWebhookEvents } from './webhook-events.ts';

type Document = ReturnType<OpenAPIHono['getOpenAPI31Document']>;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

const pascal = (word: string) => word.split(/[^A-Za-z0-9]+/).filter(Boolean).map((part) => part[0]!.toUpperCase() + part.slice(1)).join('');

/**
 * The one naming rule (README, Development): the method, then each path segment after `/api` in PascalCase,
 * a path parameter as `By` + its name. `GET /api/lists/{listId}/leads` → `getListsByListIdLeads`,
 * `GET /healthz` → `getHealthz`. Derived here, for every mounted route, so a route added later gets one
 * without anyone writing it; test/unit/openapi-document.test.ts fails when two routes end up with the same.
 */
export function operationIdOf(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean);
  if (segments[0] === 'api') segments.shift();
  const words = segments.map((segment) => {
    const param = /^\{(.+)\}$/.exec(segment);
    return param ? `By${pascal(param[1]!)}` : pascal(segment);
  });
  return method.toLowerCase() + words.join('');
}

/** Each tag an operation carries, with what it groups (Redocly's tag-description rule wants one for each). */
export const TAGS: Record<string, string> = {
  health: 'Liveness and readiness probes',
  auth: 'Sign-up, sign-in and the session',
  'api-keys': "The organization's API keys (the dashboard creates them; the key is shown once)",
  lists: 'Lead lists',
  leads: 'Leads in a list: add, import, read, edit',
  verification: 'Bulk email verification jobs: SMTP stage, paid fill decision, results',
  scrape: 'Scrape jobs: a CSV of companies, names or domains into profile URLs',
  enrichment: 'Single and bulk enrichment: work emails, personal emails and phones for credits',
  credits: 'The credit balance and its ledger',
  organization: "The organization's people: invites, members (managing them is the owner's)",
  usage: 'Spend by month: credits by datum, verification dollars, jobs by kind',
  settings: "The organization's enrichment providers",
  webhooks: 'Webhook endpoints and their deliveries (a session, or an API key with `webhooks:write`)',
  outcomes: 'What happened when the organization sent to an address: delivered or bounced (a session, or an API key with `verification:write`)',
  'external-lists': 'Lead lists, for integrations (an API key)',
  'external-leads': 'Leads, for integrations (an API key)',
  'external-verification': 'One address in real time, and bulk verification jobs, for integrations (an API key)',
  'external-enrichment': 'Single and bulk enrichment, for integrations (an API key)',
  'webhook-events': 'What the service sends to webhook endpoints (OpenAPI `webhooks`), signed per Standard Webhooks',
};

function registerSecuritySchemes(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'sid',
    description: 'Session cookie set by /api/auth/login or /api/auth/signup',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
}

/** The OpenAPI document of every route mountApi mounts, built from a bare app: no database, Temporal or configuration. */
export function buildOpenApiDocument(): Document {
  const app = new OpenAPIHono<AppEnv>();
  mountApi(app);
  registerSecuritySchemes(app);
  registerWebhookEvents(app);
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'Lead Enrichment API',
      version: '1.0.0',
      description: 'Lists, verification, scrape and enrichment.',
    },
    // Relative: the document is served by the service it describes, wherever that is deployed.
    servers: [{ url: '/', description: 'The server that serves this document' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  });
  // The service carries no open-source licence (package.json is private): integrators use it under their
  // agreement with the operator. `LicenseRef-` is SPDX's form for a licence it does not list. Set here because
  // the generator's configuration type is OpenAPI 3.0's, which has no `identifier`.
  document.info.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) operation.operationId = operationIdOf(method, path);
    }
  }
  // A webhook's key is a name, not a path: the rule reads it as `/webhook-events/<name>`, its tag, which no route has.
  for (const [name, item] of Object.entries(document.webhooks ?? {})) {
    for (const method of METHODS) {
      const operation = (item as typeof item & Record<string, { operationId?: string } | undefined>)[method];
      if (operation) operation.operationId = operationIdOf(method, `/webhook-events/${name}`);
    }
  }
  return document;
}

let built: Document | undefined;

/** Built once per process, on first use: the routes cannot change while it runs. */
export function openApiDocument(): Document {
  built ??= buildOpenApiDocument();
  return built;
}
