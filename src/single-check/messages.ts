/** What the single-address check's workflow and activity exchange. */
import { workflowType } from '../temporal/workflow-type.ts';
import type { CheckRecord } from './repository.ts';

export type { CheckRecord } from './repository.ts';

export interface SingleCheckInput {
  organizationId: string;
  email: string;
  /** The probe's own deadline: what is left of the caller's, less the hand-off to and from the worker. */
  timeoutMs: number;
}

/**
 * The check's workflow (workflows/single-check.ts), registered under its first type name: running checks and the
 * recorded histories carry it.
 */
export const singleCheckWorkflowType = workflowType<(input: SingleCheckInput) => Promise<CheckRecord>>()('singleVerifyWorkflow');
