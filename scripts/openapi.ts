// Writes the OpenAPI document (what GET /openapi.json serves) to a file, or to stdout without one, without
// starting the service: `npm run lint:openapi` lints it and `npm run client:generate` generates the client from it.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildOpenApiDocument } from '../src/http/openapi.ts';

const out = process.argv[2];
const text = `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
if (out) {
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, text);
} else {
  process.stdout.write(text);
}
