import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type MiddlewareHandler } from 'hono';
import { DASHBOARD_DIR } from '../dashboard-files.ts';

// Everything the page loads comes from this origin: no inline script or style, nothing from another host.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths the dashboard never answers: the API, its docs and the operators' endpoints keep their own 404s. */
const RESERVED = ['/api', '/docs', '/openapi.json', '/metrics', '/healthz', '/readyz', '/assets'];
const reserved = (p: string) => RESERVED.some((prefix) => p === prefix || p.startsWith(`${prefix}/`));

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Lead Enrichment</title></head>
<body><h1>The dashboard is not built</h1><p>Run <code>npm install</code> (or <code>node scripts/build-dashboard.ts</code>) and reload.
The API works meanwhile: <a href="/docs">/docs</a>.</p></body></html>`;

/** The built dashboard at `/`: hashed assets under /assets, and index.html for every other page path (hash routing). */
export function dashboardRoutes(dir = DASHBOARD_DIR) {
  let index: string | undefined;
  let assets: MiddlewareHandler | undefined;
  const page = async () =>
    (index ??= await readFile(path.join(dir, 'index.html'), 'utf8').catch(() => undefined));
  return new Hono()
    .get('/assets/*', (c, next) => {
      // Made on first use: serveStatic complains at creation about a folder a fresh checkout has not built yet.
      assets ??= serveStatic({
        root: dir,
        onFound: (_path, ctx) => ctx.header('Cache-Control', 'public, max-age=31536000, immutable'),
      });
      return assets(c, next);
    })
    .get('*', async (c, next) => {
      if (reserved(c.req.path)) return next();
      const html = await page();
      c.header('Content-Security-Policy', CSP);
      c.header('X-Content-Type-Options', 'nosniff');
      c.header('Referrer-Policy', 'same-origin');
      c.header('Cache-Control', 'no-cache');
      return html ? c.html(html) : c.html(NOT_BUILT, 503);
    });
}
