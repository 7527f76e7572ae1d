/** What the email finder's workflow, activities and service exchange (CONTRACT §14). */
import { defineUpdate } from '@temporalio/workflow';
import type { FindAnswer } from '../domain/find-answer.ts';
import type { Candidate, FindStep } from '../domain/finder.ts';
import { workflowType } from '../temporal/workflow-type.ts';

export type { FindAnswer } from '../domain/find-answer.ts';
export type { FindStep } from '../domain/finder.ts';

export interface FindInput {
  /** Also the id of the find's workflow, its catch-all seed and the stem of its credit key. */
  findId: string;
  organizationId: string;
  firstName: string;
  lastName: string;
  domain: string;
  /** SMTP_GREYLIST_SCHEDULE in milliseconds: the waits before asking deferred candidates again. */
  schedule: number[];
}

/** One find's workflow (workflows/find-email.ts). */
export const findEmailWorkflowType = workflowType<(input: FindInput) => Promise<FindAnswer>>()('findEmailWorkflow');

/** One pass of the find: the first (`retry` absent) or the later one over the candidates still deferred. */
export interface FindStepInput extends FindInput {
  retry?: Candidate[];
}

export interface SettleFindInput extends FindInput {
  step: FindStep;
}

/**
 * The route's wait for the first answer: the settled answer when the first pass decided, null when it has to
 * wait out greylisting (the route then answers 202 and the workflow goes on).
 */
export const firstAnswerUpdate = defineUpdate<FindAnswer | null>('firstAnswer');
