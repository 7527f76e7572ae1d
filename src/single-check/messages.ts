/** What the single-address check's workflow and activity exchange. */
export type { CheckRecord } from './repository.ts';

export interface SingleCheckInput {
  organizationId: string;
  email: string;
  /** The probe's own deadline: what is left of the caller's, less the hand-off to and from the worker. */
  timeoutMs: number;
}
