import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Hono } from 'hono';
// The package's index would also load the 1.4 MB browser bundle into the server (~35 MB of resident memory).
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';

// Swagger UI from the installed package, never a CDN: the docs load behind a firewall and offline.
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const cache = new Map<string, Buffer>();

async function asset(name: string): Promise<Buffer> {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = await readFile(path.join(getAbsoluteFSPath(), name));
    cache.set(name, bytes);
  }
  return bytes;
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Lead Enrichment API</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <p style="font-family: sans-serif; margin: 1em 2em">The machine-readable document: <a href="/openapi.json">/openapi.json</a></p>
  <noscript>The interactive docs need JavaScript; the OpenAPI document above has everything.</noscript>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });</script>
</body>
</html>`;

export const docsRoutes = new Hono()
  .get('/docs', (c) => c.html(PAGE))
  .get('/docs/assets/:name', async (c) => {
    const name = c.req.param('name');
    const type = ASSETS[name];
    if (!type) return c.notFound();
    return c.body(new Uint8Array(await asset(name)), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' });
  });
