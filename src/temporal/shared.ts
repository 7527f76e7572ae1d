import type { SearchAttributePair } from '@temporalio/common';
import { SEARCH_ATTRIBUTE_KEYS as SA } from './search-attributes.ts';

// Names shared by the processes that start, signal and run the job workflows (the API, the worker, the CLI).

export const JOB_KINDS = ['verification', 'scrape', 'enrichment'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const workflowId = (kind: JobKind, jobId: string) => `${kind}-${jobId}`;

/** The search attributes every job workflow carries, so operators can filter them in the Web UI. */
export function jobSearchAttributes(kind: JobKind, organizationId: string, listId?: string | null): SearchAttributePair[] {
  return [
    { key: SA.OrganizationId, value: organizationId },
    { key: SA.JobKind, value: kind },
    ...(listId ? [{ key: SA.ListId, value: listId }] : []),
  ];
}
