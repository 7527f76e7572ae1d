export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

export type SearchProviderName = 'serper' | 'brave';

export interface ProfileSearchProvider {
  readonly name: SearchProviderName;
  /** Organic web results in the engine's order, at most `count` of them. */
  search(q: string, count: number): Promise<SearchHit[]>;
}
