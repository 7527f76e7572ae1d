import {
  header,
  routes,
  keyGuard,
  startStandIn,
  type RecordedRequest,
  type Reply,
  type StandIn,
} from './stand-in.ts';

export interface SerperResult {
  title: string;
  link: string;
  snippet?: string;
}

export interface SerperFixtures {
  /** Exact query → organic results in rank order; other queries have none... */
  results: Map<string, SerperResult[]>;
  /** ...unless this answers them (the sandbox's made-up profiles). */
  fallback?: (query: string) => SerperResult[];
}

export interface SerperServer extends StandIn {
  readonly apiKey: string;
  readonly fixtures: SerperFixtures;
}

/** Serper stand-in: `POST /search {q, num}` with `X-API-KEY`; a wrong key is 403 as on the real service. */
export async function startSerperServer(options: { apiKey?: string } = {}): Promise<SerperServer> {
  const apiKey = options.apiKey ?? 'serper-test-key-0001';
  const fixtures: SerperFixtures = { results: new Map() };

  const keyed = keyGuard(apiKey, (request) => header(request, 'x-api-key'), () => ({ status: 403, json: { message: 'Unauthorized.', statusCode: 403 } }));
  const search = keyed((request: RecordedRequest): Reply => {
    const body = request.body as { q?: unknown; num?: unknown } | undefined;
    if (typeof body?.q !== 'string')
      return { status: 400, json: { message: 'Missing query parameter', statusCode: 400 } };
    const num = typeof body.num === 'number' ? body.num : 10;
    const organic = (fixtures.results.get(body.q) ?? fixtures.fallback?.(body.q) ?? []).slice(0, num).map((result, index) => ({
      title: result.title,
      link: result.link,
      snippet: result.snippet ?? '',
      position: index + 1,
    }));
    return {
      status: 200,
      json: { searchParameters: { q: body.q, type: 'search', num, engine: 'google' }, organic, credits: 1 },
    };
  });

  const standIn = await startStandIn(routes({ 'POST /search': search }));
  return Object.assign(standIn, { apiKey, fixtures });
}
