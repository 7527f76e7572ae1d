import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, operationIdOf, TAGS } from '../../src/http/openapi.ts';

// The document integrators generate clients from (issue #34): every rule below holds for routes added later
// too, since each is checked over whatever the app mounts, not over a list kept by hand.
const document = buildOpenApiDocument();
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
type Operation = { operationId?: string; security?: unknown; tags?: string[]; responses: Record<string, unknown> };
const operationsOf = (items: object, pathOf: (key: string) => string) =>
  Object.entries(items as Record<string, Record<string, Operation>>).flatMap(([key, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${pathOf(key)}`, method, path: pathOf(key), operation })),
  );
// The events the service sends (OpenAPI `webhooks`) are operations too, named as if at /webhook-events/<name>.
const operations = [...operationsOf(document.paths ?? {}, (path) => path), ...operationsOf(document.webhooks ?? {}, (name) => `/webhook-events/${name}`)];

describe('the OpenAPI document', () => {
  it('is built without a database, and holds the routes', () => {
    expect(operations.length).toBeGreaterThan(70);
  });

  it('gives every operation the operationId of the one naming rule, none twice', () => {
    const missing = operations.filter(({ operation }) => !operation.operationId).map(({ name }) => name);
    expect(missing).toEqual([]);
    for (const { method, path, operation } of operations) expect(operation.operationId, `${method} ${path}`).toBe(operationIdOf(method, path));
    const byId = new Map<string, string[]>();
    for (const { name, operation } of operations) byId.set(operation.operationId!, [...(byId.get(operation.operationId!) ?? []), name]);
    expect([...byId].filter(([, names]) => names.length > 1)).toEqual([]);
  });

  it('names by method and path: parameters as By<Name>, /api dropped, other separators folded', () => {
    expect(operationIdOf('get', '/api/lists')).toBe('getLists');
    expect(operationIdOf('get', '/api/lists/{listId}')).toBe('getListsByListId');
    expect(operationIdOf('post', '/api/webhooks/{id}/deliveries/{deliveryId}/retry')).toBe('postWebhooksByIdDeliveriesByDeliveryIdRetry');
    expect(operationIdOf('put', '/api/settings/enrichment-providers')).toBe('putSettingsEnrichmentProviders');
    expect(operationIdOf('get', '/healthz')).toBe('getHealthz');
  });

  it('states who may call each operation: a session, an API key, or nobody in particular (`security: []`)', () => {
    const schemes = Object.keys(document.components?.securitySchemes ?? {});
    expect(schemes.sort()).toEqual(['apiKey', 'session']);
    for (const { name, operation } of operations) {
      expect(Array.isArray(operation.security), name).toBe(true);
      for (const requirement of operation.security as Record<string, string[]>[]) expect(schemes, name).toEqual(expect.arrayContaining(Object.keys(requirement)));
    }
    const open = operations.filter(({ operation }) => (operation.security as unknown[]).length === 0).map(({ name }) => name);
    expect(open.sort()).toEqual([
      'GET /healthz',
      'GET /readyz',
      'POST /api/auth/login',
      'POST /api/auth/signup',
      'POST /webhook-events/enrichment',
      'POST /webhook-events/scrape',
      'POST /webhook-events/verification',
    ]);
  });

  it('puts each operation under one declared tag, and declares only tags in use', () => {
    for (const { name, operation } of operations) {
      expect(operation.tags, name).toHaveLength(1);
      expect(Object.keys(TAGS), name).toContain(operation.tags![0]);
    }
    expect(new Set(operations.map(({ operation }) => operation.tags![0]))).toEqual(new Set(Object.keys(TAGS)));
  });

  it('documents a success and at least one client error for every operation', () => {
    for (const { name, operation } of operations) {
      const statuses = Object.keys(operation.responses);
      expect(statuses.some((s) => s.startsWith('2')), name).toBe(true);
      expect(statuses.some((s) => s.startsWith('4')), name).toBe(true);
    }
  });

  it('documents the errors a route returns by its shape: a body over the limit, a bad or reused idempotency key', () => {
    const post = document.paths!['/api/external/verification/jobs']!.post!;
    expect(Object.keys(post.responses!)).toEqual(expect.arrayContaining(['400', '401', '403', '409', '413', '414', '422', '429', '431', '500', '503']));
    const get = document.paths!['/api/external/lists']!.get!;
    expect(Object.keys(get.responses!)).not.toContain('413');
  });

  it('documents the events sent to webhook endpoints, one per job kind, each with every event type of its kind', () => {
    const body = (name: string) => (document.webhooks![name] as { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }).post.requestBody.content['application/json']!.schema.$ref;
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual(['enrichment', 'scrape', 'verification']);
    expect(body('verification')).toBe('#/components/schemas/VerificationJobEvent');
    const event = document.components!.schemas!.VerificationJobEvent as { properties: { type: { enum: string[] }; data: unknown } };
    expect(event.properties.type.enum).toEqual(['verification.awaiting_decision', 'verification.completed', 'verification.failed']);
    expect(event.properties.data).toMatchObject({ properties: { job: { $ref: '#/components/schemas/VerificationJob' } } });
  });

  it('names its servers and licence', () => {
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(document.info.license).toMatchObject({ name: expect.any(String), identifier: expect.any(String) });
  });
});
