import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CLIENT_SCHEMA, clientSchemaText } from '../../scripts/client-generate.ts';

// The committed client types are what the routes generate now: a route change reaches client/schema.d.ts (and,
// through the typecheck of examples/, any call it breaks) or CI fails here.
describe('client/schema.d.ts', () => {
  it('is what `npm run client:generate` makes from the current routes', { timeout: 60_000 }, async () => {
    const committed = await readFile(CLIENT_SCHEMA, 'utf8');
    const current = await clientSchemaText();
    expect(current.length).toBeGreaterThan(1000);
    // Equality of the whole text, without a diff of ten thousand lines when it fails.
    expect(committed === current, 'client/schema.d.ts is stale: run `npm run client:generate` and commit it').toBe(true);
  });
});
