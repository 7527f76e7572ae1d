import { defineSignal } from '@temporalio/workflow';

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
