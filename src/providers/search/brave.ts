import { z } from 'zod';
import { ProviderAuthError, ProviderRequestError } from '../errors.ts';
import { providerClient, parseProviderBody, requireApiKey, type ProviderTuning, type ProviderHttpClient } from '../http.ts';
import type { ProfileSearchProvider, SearchHit } from './types.ts';

const PROVIDER = 'brave';
const MAX_COUNT = 20;

export interface BraveOptions extends ProviderTuning {
  apiKey?: string;
  /** `https://api.search.brave.com`. */
  baseUrl: string;
}

const searchSchema = z.object({
  // `web` is left out when nothing matched.
  web: z
    .object({
      results: z.array(z.object({ title: z.string(), url: z.string(), description: z.string().optional() })),
    })
    .optional(),
});

// Brave reports a bad or missing token as 422 `{type: "ErrorResponse", error: {code: "SUBSCRIPTION_TOKEN_INVALID", ...}}`.
const errorSchema = z.object({ error: z.object({ code: z.string(), detail: z.string().optional() }) });

/** Brave Web Search: `GET /res/v1/web/search?q&count` with `X-Subscription-Token`. */
export class BraveProvider implements ProfileSearchProvider {
  readonly name = PROVIDER;
  readonly #apiKey: string | undefined;
  readonly #baseUrl: string;
  readonly #http: ProviderHttpClient;

  constructor(options: BraveOptions) {
    this.#apiKey = options.apiKey;
    this.#baseUrl = options.baseUrl;
    // The free plan allows one request per second.
    this.#http = providerClient(PROVIDER, options, { timeoutMs: 15_000, rateLimit: { perSecond: 1 } });
  }

  async search(q: string, count: number): Promise<SearchHit[]> {
    const apiKey = requireApiKey(PROVIDER, this.#apiKey);
    const wanted = Math.min(MAX_COUNT, Math.max(1, Math.trunc(count)));
    const answer = await this.#http.send({
      method: 'GET',
      baseUrl: this.#baseUrl,
      path: '/res/v1/web/search',
      query: { q, count: wanted },
      headers: { 'x-subscription-token': apiKey },
      secrets: [apiKey],
      accept: [422],
    });
    if (answer.status === 422) {
      const { error } = parseProviderBody(PROVIDER, errorSchema, answer);
      if (/TOKEN/i.test(error.code)) {
        throw new ProviderAuthError(PROVIDER, `${PROVIDER} rejected the API key: ${error.code}`, 422);
      }
      throw new ProviderRequestError(
        PROVIDER,
        `${PROVIDER} refused the request (HTTP 422): ${error.code}`,
        422,
      );
    }
    const body = parseProviderBody(PROVIDER, searchSchema, answer);
    return (body.web?.results ?? []).slice(0, wanted).map((result) => ({
      title: plainText(result.title),
      url: result.url,
      snippet: plainText(result.description ?? ''),
    }));
  }
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Brave highlights matches with `<strong>` and escapes entities in titles and descriptions. */
function plainText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (!name.startsWith('#')) return ENTITIES[name.toLowerCase()] ?? whole;
      const code = /^#x/i.test(name) ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    })
    .trim();
}
