import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { multipartBody } from '../support/raw-http.ts';
import { type ProviderServers, startProviderServers } from '../support/providers/index.ts';
import { type ServiceProcess, startServiceProcess } from '../support/worker-process.ts';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

// An OTLP/HTTP receiver on loopback: the spans the service exports, as a collector would get them.
const spans: Span[] = [];
let collector: Server;
let service: ServiceProcess;
let providers: ProviderServers;

beforeAll(async () => {
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  providers = await startProviderServers();
  service = await startServiceProcess(
    {
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `tracing-${randomUUID()}`,
      APP_ORIGINS: 'http://app.test',
      SERPER_BASE_URL: providers.urls.SERPER_BASE_URL,
      SERPER_API_KEY: providers.keys.SERPER_API_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as { port: number }).port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
    'all',
  );
});
afterAll(async () => {
  await service?.kill();
  await providers?.close();
  await new Promise((resolve) => collector?.close(resolve));
});

describe('OpenTelemetry traces', () => {
  it('one trace runs from the HTTP request through the workflow it starts to its activities', async () => {
    const signup = await fetch(`${service.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `t-${randomUUID()}@example.test`, password: 'correct horse battery', organizationName: 'Traced' }),
    });
    const cookie = signup.headers.getSetCookie()[0]!.split(';')[0]!;
    const { body, contentType } = multipartBody('company\nAcme\n', { name: 'traced' });
    const upload = await fetch(`${service.url}/api/scrape/jobs`, { method: 'POST', headers: { cookie, origin: 'http://app.test', 'content-type': contentType }, body });
    expect(upload.status).toBe(201);

    const byName = (prefix: string) => spans.filter((s) => s.name.startsWith(prefix));
    // The workflow's own span is exported when the workflow closes, after its last activities (the job event too).
    const exported = () => byName('RunActivity:completeScrapeJob').length > 0 && byName('RunWorkflow:scrapeWorkflow').length > 0;
    await eventually(exported, (done) => done, { what: 'the scrape workflow and its last activity exported', timeoutMs: 30_000, intervalMs: 100 });

    const request = spans.find((s) => s.name.includes('/api/scrape/jobs') && !s.parentSpanId);
    expect(request, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
    const trace = spans.filter((s) => s.traceId === request!.traceId);
    const names = trace.map((s) => s.name);
    expect(names).toContain('StartWorkflow:scrapeWorkflow');
    expect(names).toContain('RunWorkflow:scrapeWorkflow');
    expect(names).toContain('RunActivity:completeScrapeJob');
    // Every span of the trace hangs off the request's span.
    const ids = new Set(trace.map((s) => s.spanId));
    for (const span of trace) if (span !== request) expect(ids.has(span.parentSpanId!), span.name).toBe(true);
  });
});
