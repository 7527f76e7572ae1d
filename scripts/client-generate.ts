// `npm run client:generate`: the typed client's types (client/schema.d.ts) from the OpenAPI document, as
// openapi-typescript makes them. test/unit/client-current.test.ts fails when the committed file is not what
// this generates now, so a route change that alters the document reaches the client (and its typecheck) in CI.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER, type OpenAPI3 } from 'openapi-typescript';
import { buildOpenApiDocument } from '../src/http/openapi.ts';

export const CLIENT_SCHEMA = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'client', 'schema.d.ts');

/** The text of client/schema.d.ts for the document the routes make now. */
export async function clientSchemaText(): Promise<string> {
  // The generator reads the document as plain JSON, as a client's build would after fetching /openapi.json.
  const document = JSON.parse(JSON.stringify(buildOpenApiDocument())) as OpenAPI3;
  const ast = await openapiTS(document, { silent: true });
  return `${COMMENT_HEADER.replace(' */', ' * Regenerate with `npm run client:generate` (test/unit/client-current.test.ts checks it is current).\n */')}${astToString(ast)}`;
}

if (import.meta.main) await writeFile(CLIENT_SCHEMA, await clientSchemaText());
