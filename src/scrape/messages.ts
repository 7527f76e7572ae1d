import type { ScrapeJobStatus } from '../domain/scrape.ts';
import { defineSignal } from '@temporalio/workflow';
import { workflowType } from '../temporal/workflow-type.ts';

/**
 * Pause and resume of a scrape job. The routes move the job's status in the database first (that is
 * what answers 409), bumping its control version, then signal that version: the workflow applies only
 * a version newer than the last it saw, so late or reordered signals can never undo a newer decision.
 */
export interface ScrapeControl {
  version: number;
}

export const pauseScrapeSignal = defineSignal<[ScrapeControl]>('pauseScrape');
export const resumeScrapeSignal = defineSignal<[ScrapeControl]>('resumeScrape');

/** What the route starts a scrape workflow with; the rest is carried across continue-as-new. */
export interface ScrapeWorkflowInput {
  jobId: string;
  /** Every item at or before this row is settled. */
  afterRow?: number;
  held?: boolean;
  controlVersion?: number;
}

/** A scrape job's workflow (workflows/scrape.ts). */
export const scrapeWorkflowType = workflowType<(input: ScrapeWorkflowInput) => Promise<void>>()('scrapeWorkflow');

export interface ScrapeBatchInput {
  jobId: string;
  /** Every item at or before this row is settled. */
  afterRow: number;
}

export interface ScrapeBatchResult {
  afterRow: number;
  /** `more`: call again; `done`: nothing pending after the cursor; `stopped`: the job is not processing. */
  outcome: 'more' | 'done' | 'stopped';
  /** The job's status and control version as last read. */
  status: ScrapeJobStatus;
  controlVersion: number;
}
