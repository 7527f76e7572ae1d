/* eslint-disable @typescript-eslint/no-explicit-any -- OpenAPI documents and generated bodies are untyped JSON */
import { generateSync } from 'json-schema-faker';

/** A small seeded PRNG (mulberry32): the same seed gives the same cases on every run. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}
export type Rng = ReturnType<typeof seededRandom>;

export interface Operation {
  method: string;
  path: string;
  auth: 'session' | 'apiKey' | 'none';
  bodySchema: any | undefined;
  multipart: boolean;
  params: Array<{ in: 'path' | 'query'; name: string; required: boolean; schema: any }>;
}

export function operationsOf(doc: any): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      const security: any[] = op.security ?? [];
      const content = op.requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        auth: security.some((s) => 'session' in s) ? 'session' : security.some((s) => 'apiKey' in s) ? 'apiKey' : 'none',
        bodySchema: content['application/json']?.schema,
        multipart: 'multipart/form-data' in content,
        params: (op.parameters ?? []).map((p: any) => ({ in: p.in, name: p.name, required: !!p.required, schema: p.schema ?? {} })),
      });
    }
  }
  return ops;
}

/** A valid instance of `schema` (refs resolved against the document's components), or undefined. */
export function validInstance(schema: any, doc: any, seed: number): any {
  try {
    return generateSync({ ...schema, components: doc.components } as any, { seed, optionalsProbability: 0.5, maxItems: 3 });
  } catch {
    return undefined;
  }
}

/** Strings a careless service would choke on: NUL, huge, broken UTF-16, control and direction characters, injections. */
export const ODD_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\u0000',
  'x'.repeat(100_000),
  '\ud800',
  '\udfff\ud800',
  '😀'.repeat(500),
  '\u202eevil',
  "'; drop table lead; --",
  '../../../../etc/passwd',
  '%00%2e%2e%2f',
  '{{7*7}}${7*7}',
  '<script>alert(1)</script>',
  '\r\nX-Injected: 1',
  '0x7fffffffffffffff',
  'NaN',
  '-1',
  '1e309',
];
export const ODD_VALUES: unknown[] = [null, true, 0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, [], [null], {}, { $ne: null }, ...ODD_STRINGS.slice(0, 8)];

/** A deep copy with one leaf (or the whole) replaced, one required field removed, or an unknown field added. */
export function mutate(value: any, rng: Rng): any {
  if (value === null || typeof value !== 'object') return rng.pick([...ODD_VALUES, ...ODD_STRINGS]);
  const copy = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  const roll = rng.int(4);
  if (keys.length === 0 || roll === 0) {
    (copy as any)[rng.pick(['__proto__', 'constructor', 'extra', '0'])] = rng.pick(ODD_VALUES);
    return copy;
  }
  const key = rng.pick(keys);
  if (roll === 1) delete (copy as any)[key];
  else (copy as any)[key] = rng.next() < 0.5 ? mutate((copy as any)[key], rng) : rng.pick([...ODD_VALUES, ...ODD_STRINGS]);
  return copy;
}

/** Bodies that are not the JSON the route expects at all. */
export const RAW_BODIES = ['', '{', '{"a":', 'null', '[]', '"text"', '1', '{"a":1}{"b":2}', '\u0000', `${'['.repeat(5000)}${']'.repeat(5000)}`, '{"\\ud800": 1}'];

/** CSV uploads, good and broken, for the multipart routes. */
export const CSV_FILES: Array<string | Uint8Array> = [
  'email,first_name,company\na@x.test,Ann,Acme\n',
  'company\nAcme\nGlobex\n',
  '',
  '\uFEFF',
  'email\n"unclosed\n',
  'email\n"a"b\n',
  new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
  new Uint8Array([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x0a, 0xff, 0xfe, 0x0a]),
  `email,notes\na@x.test,${'n'.repeat(2 * 1024 * 1024)}\n`,
  `${'c,'.repeat(5000)}\n1\n`,
  'email;name\r\na@x.test;Ann\r\n',
];
