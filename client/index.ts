// The typed client for integrations: openapi-fetch over the types openapi-typescript generated from the
// OpenAPI document (schema.d.ts, `npm run client:generate`). Paths, parameters, bodies and answers are all
// checked against the document, so nothing here restates a schema.
import createClient from 'openapi-fetch';
import type { paths } from './schema.d.ts';

export type { components, operations, paths, webhooks } from './schema.d.ts';

export interface ClientOptions {
  /** Where the service answers, e.g. `https://leads.example.com` (the document's server is relative: `/`). */
  baseUrl: string;
  /** An API key (`X-API-Key`); the dashboard creates it and shows it once. */
  apiKey: string;
}

/** A client whose every request carries the API key. */
export function createApiClient({ baseUrl, apiKey }: ClientOptions) {
  return createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });
}

export type ApiClient = ReturnType<typeof createApiClient>;
