/** What enrichment's workflows and activities exchange: single enrichment and bulk jobs. */
import type { EnrichmentField } from '../domain/enrichment.ts';
import type { PersonFacts } from './engine-waterfall.ts';
import { workflowType } from '../temporal/workflow-type.ts';

export interface SingleEnrichmentInput {
  /** Also the id of the request's workflow and the stem of its idempotency keys. */
  requestId: string;
  organizationId: string;
  /** Normalized profile URL. */
  networkUrl: string;
}

/** What the providers gave (verified data only); recorded in the workflow history between lookup and settle. */
export interface ProfileLookup {
  found: boolean;
  person: PersonFacts;
  values: Partial<Record<EnrichmentField, string>>;
  /** Fields the waterfall ran for (those the cache did not settle). */
  searched: EnrichmentField[];
}

export interface EnrichedProfileDto {
  networkUrl: string;
  firstName: string | null;
  lastName: string | null;
  title: string | null;
  company: string | null;
  workEmail: string | null;
  personalEmail: string | null;
  phone: string | null;
}

export interface SingleEnrichmentResult {
  success: boolean;
  /** The whole profile when found; only `networkUrl` when not. */
  profile: EnrichedProfileDto | { networkUrl: string };
  creditsUsed: number;
  withheld: EnrichmentField[];
}

/** What the route starts a bulk enrichment workflow with; the cursor is carried across continue-as-new. */
export interface BulkEnrichmentInput {
  jobId: string;
  /** Carried across continue-as-new: the job's committed cursor. */
  cursor?: string | null;
}

export interface BatchInput {
  jobId: string;
  /** The job's cursor this batch starts after (null for the first batch). */
  after: string | null;
}

export interface BatchStep {
  /** The cursor after this batch: where the next batch starts. */
  cursor: string | null;
  /** The job is over (completed, stopped or failed): no further batch. A job gone throws `JobGoneError`. */
  done: boolean;
}

/** The workflows of workflows/enrichment.ts: one profile a caller waits for, and a list's bulk job. */
export const singleEnrichmentWorkflowType = workflowType<(input: SingleEnrichmentInput) => Promise<SingleEnrichmentResult>>()('singleEnrichmentWorkflow');
export const bulkEnrichmentWorkflowType = workflowType<(input: BulkEnrichmentInput) => Promise<void>>()('bulkEnrichmentWorkflow');
