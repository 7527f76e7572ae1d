import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes every job workflow carries, so operators can filter them in the Temporal Web UI.
 * The values use the Temporal CLI spelling (`--search-attribute OrganizationId=Keyword`).
 */
export const TEMPORAL_SEARCH_ATTRIBUTES = {
  OrganizationId: 'Keyword',
  JobKind: 'Keyword',
  ListId: 'Keyword',
} as const;

export type SearchAttributeName = keyof typeof TEMPORAL_SEARCH_ATTRIBUTES;

/** Typed keys for `typedSearchAttributes` when starting workflows and for SDK-managed dev servers. */
export const SEARCH_ATTRIBUTE_KEYS = {
  OrganizationId: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD),
  JobKind: defineSearchAttributeKey('JobKind', SearchAttributeType.KEYWORD),
  ListId: defineSearchAttributeKey('ListId', SearchAttributeType.KEYWORD),
} as const satisfies Record<SearchAttributeName, unknown>;
