import { z } from 'zod';
import { providerClient, requireApiKey, type ProviderTuning, type ProviderHttpClient } from '../http.ts';
import type { ProfileSearchProvider, SearchHit } from './types.ts';

const PROVIDER = 'serper';

export interface SerperOptions extends ProviderTuning {
  apiKey?: string;
  /** `https://google.serper.dev`. */
  baseUrl: string;
}

const searchSchema = z.object({
  // Absent when the query has no organic result.
  organic: z
    .array(
      z.object({
        title: z.string(),
        link: z.string(),
        snippet: z.string().optional(),
        position: z.number().optional(),
      }),
    )
    .optional(),
});

/** Serper (Google results): `POST /search` `{q, num}` with `X-API-KEY`. */
export class SerperProvider implements ProfileSearchProvider {
  readonly name = PROVIDER;
  readonly #apiKey: string | undefined;
  readonly #baseUrl: string;
  readonly #http: ProviderHttpClient;

  constructor(options: SerperOptions) {
    this.#apiKey = options.apiKey;
    this.#baseUrl = options.baseUrl;
    this.#http = providerClient(PROVIDER, options, { timeoutMs: 15_000, rateLimit: { perSecond: 5, burst: 5 } });
  }

  async search(q: string, count: number): Promise<SearchHit[]> {
    const apiKey = requireApiKey(PROVIDER, this.#apiKey);
    const num = Math.min(100, Math.max(1, Math.trunc(count)));
    const body = await this.#http.sendJson(
      {
        method: 'POST',
        baseUrl: this.#baseUrl,
        path: '/search',
        headers: { 'x-api-key': apiKey },
        json: { q, num },
        secrets: [apiKey],
      },
      searchSchema,
    );
    return (body.organic ?? [])
      .slice(0, num)
      .map((result) => ({ title: result.title, url: result.link, snippet: result.snippet ?? '' }));
  }
}
