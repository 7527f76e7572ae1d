import { httpInstrumentationMiddleware } from '@hono/otel';
import { OpenAPIHono } from '@hono/zod-openapi';
import { limitBody } from './router.ts';
import { cors } from 'hono/cors';
import type { AppDeps, AppEnv } from './env.ts';
import { ApiError } from '../errors.ts';
import { errorBody } from './errors.ts';
import { withLogContext } from '../log.ts';
import { handleError } from './error-handler.ts';
import { createAppMetrics } from './metrics.ts';
import { requestContext } from './middleware/request-context.ts';
import { requestHeader } from './request-header.ts';
import { mountApi } from './api.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { docsRoutes } from './routes/docs.ts';
import { openApiDocument } from './openapi.ts';
import { isMultipart } from './multipart.ts';

export function createApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>();
  const { config } = deps;

  // A server span per request (the parent of the workflow it starts) when tracing is on; the global tracer is a no-op otherwise.
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT) app.use('*', httpInstrumentationMiddleware({ serviceName: config.OTEL_SERVICE_NAME }));
  const metrics = config.METRICS_ENABLED ? createAppMetrics(deps) : null;
  if (metrics) app.use('*', metrics.middleware);
  app.use('*', requestContext(deps));
  app.use('*', (c, next) => withLogContext({ requestId: c.get('requestId') }, next));
  const corsHeaders = cors({
    origin: (origin) => (config.APP_ORIGINS.includes(origin) ? origin : null),
    credentials: true,
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    allowHeaders: ['Content-Type', 'X-Request-Id', 'X-API-Key', 'Idempotency-Key'],
    exposeHeaders: [
      'X-Request-Id',
      'Retry-After',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Content-Disposition',
      'Idempotency-Replayed',
    ],
    maxAge: 600,
  });
  // Only browsers send Origin, and only their requests need CORS headers; for servers (integrations) the
  // middleware's early write of response headers made Hono rebuild every answer as a full fetch Response.
  app.use('/api/*', (c, next) => {
    if (requestHeader(c, 'origin') !== undefined) return corsHeaders(c, next);
    c.header('Vary', 'Origin');
    return next();
  });
  // Uploads stream and enforce their own, larger limit; every other body is small JSON. GET and HEAD carry
  // none, and asking for their body would make the server build a full fetch Request for nothing.
  const jsonLimit = limitBody(config.BODY_LIMIT_BYTES);
  const bodyless = (method: string) => method === 'GET' || method === 'HEAD';
  app.use('/api/*', (c, next) =>
    bodyless(c.req.method) || isMultipart(requestHeader(c, 'content-type')) ? next() : jsonLimit(c, next),
  );

  if (metrics) app.get('/metrics', async (c) => c.body(await metrics.render(), 200, { 'Content-Type': metrics.contentType }));
  mountApi(app);
  app.get('/openapi.json', (c) => c.json(openApiDocument()));
  app.route('/', docsRoutes);
  // Last: the dashboard answers only what no route above did.
  app.route('/', dashboardRoutes());

  app.notFound((c) =>
    c.json(errorBody(new ApiError('not_found', `Route ${c.req.method} ${c.req.path} not found`)), 404),
  );
  app.onError(handleError);
  return app;
}
