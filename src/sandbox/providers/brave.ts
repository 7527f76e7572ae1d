import {
  header,
  routes,
  keyGuard,
  startStandIn,
  type RecordedRequest,
  type Reply,
  type StandIn,
} from './stand-in.ts';

export interface BraveResult {
  title: string;
  url: string;
  description?: string;
}

export interface BraveFixtures {
  /** Exact query → web results in rank order; other queries have none (no `web` section). */
  results: Map<string, BraveResult[]>;
}

export interface BraveServer extends StandIn {
  readonly apiKey: string;
  readonly fixtures: BraveFixtures;
}

/** Brave Web Search stand-in: `GET /res/v1/web/search?q&count` with `X-Subscription-Token`; a bad token is 422. */
export async function startBraveServer(options: { apiKey?: string } = {}): Promise<BraveServer> {
  const apiKey = options.apiKey ?? 'brave-test-key-0001';
  const fixtures: BraveFixtures = { results: new Map() };

  const keyed = keyGuard(apiKey, (request) => header(request, 'x-subscription-token'), () => ({
    status: 422,
    json: {
      type: 'ErrorResponse',
      error: {
        id: 'c1a2b3c4-0000-4000-8000-000000000000',
        status: 422,
        code: 'SUBSCRIPTION_TOKEN_INVALID',
        detail: 'The provided subscription token is invalid.',
        meta: { component: 'authentication' },
      },
      time: Math.floor(Date.now() / 1000),
    },
  }));
  const search = keyed((request: RecordedRequest): Reply => {
    const q = request.query.q ?? '';
    const count = Number(request.query.count ?? 20);
    if (!q || !Number.isInteger(count) || count < 1 || count > 20) {
      return {
        status: 422,
        json: {
          type: 'ErrorResponse',
          error: { status: 422, code: 'VALIDATION', detail: 'Unable to validate request parameter(s)' },
        },
      };
    }
    const results = (fixtures.results.get(q) ?? []).slice(0, count);
    const json: Record<string, unknown> = {
      type: 'search',
      query: { original: q, more_results_available: false },
    };
    if (results.length > 0) {
      json.web = {
        type: 'search',
        results: results.map((result) => ({
          type: 'search_result',
          ...result,
          description: result.description ?? '',
        })),
        family_friendly: true,
      };
    }
    return { status: 200, json };
  });

  const standIn = await startStandIn(routes({ 'GET /res/v1/web/search': search }));
  return Object.assign(standIn, { apiKey, fixtures });
}
