import type { EmailResult } from './lead.ts';

export const VERIFICATION_METHODS = ['smtp_only', 'smtp_api_fallback', 'api_only'] as const;
export type VerificationMethod = (typeof VERIFICATION_METHODS)[number];

/**
 * interface.md §3.1 stages, plus `failed`: a job whose provider refused to work (bad key, persistent
 * outage) ends there with a `failureReason` instead of sitting in an active stage forever.
 */
export const VERIFICATION_STAGES = [
  'pending',
  'smtp_verifying',
  'awaiting_decision',
  'api_verifying',
  'completed',
  'failed',
] as const;
export type VerificationStage = (typeof VERIFICATION_STAGES)[number];

/** Stages in which a list already has a job, so a new one is refused (CONTRACT §3). */
export const ACTIVE_STAGES = [
  'pending',
  'smtp_verifying',
  'awaiting_decision',
  'api_verifying',
] as const satisfies readonly VerificationStage[];

export const DECISIONS = [
  'accept_current',
  'fill_unknowns_only',
  'fill_catchall_only',
  'fill_all_gaps',
] as const;
export type Decision = (typeof DECISIONS)[number];

/** Where a per-address result came from. */
export const RESULT_SOURCES = ['precheck', 'smtp', 'directory', 'api'] as const;
export type ResultSource = (typeof RESULT_SOURCES)[number];

/** The provider's price per address (interface.md §8.2: $0.0005), in micro-dollars. */
export const API_PRICE_MICROS = 500;

/** The SMTP results a decision sends to the provider; empty for `accept_current`. */
export function gapResultsFor(decision: Decision): EmailResult[] {
  switch (decision) {
    case 'accept_current':
      return [];
    case 'fill_unknowns_only':
      return ['Unknown'];
    case 'fill_catchall_only':
      return ['Catch-All'];
    case 'fill_all_gaps':
      return ['Unknown', 'Catch-All'];
  }
}

/** A decision that sends Catch-All results to the provider may bound them by score (CONTRACT §12). */
export const takesCatchAllBound = (decision: Decision): boolean => decision === 'fill_catchall_only' || decision === 'fill_all_gaps';

export const stageAfterDecision = (decision: Decision): VerificationStage =>
  decision === 'accept_current' ? 'completed' : 'api_verifying';

/** Micro-dollars as a JSON number of dollars: integer division by 10^6 is exact to 6 decimals. */
export const microsToDollars = (micros: number) => micros / 1_000_000;

/** Percent rounded half away from zero to 2 decimals (CONTRACT §0); 0 of 0 is 0. */
export function percent(part: number, whole: number): number {
  if (whole <= 0) return 0;
  // Integer arithmetic on hundredths of a percent: part*10000/whole, rounded half up (both are ≥ 0).
  const hundredths = Math.floor((part * 10_000 * 2 + whole) / (2 * whole));
  return hundredths / 100;
}

/** Final results of a job's addresses (provider result where one was bought, else SMTP); the job holds their total. */
export interface FinalCounts {
  valid: number;
  invalid: number;
  catchAll: number;
  unknown: number;
}

/** CONTRACT §3: (Valid + Invalid) / totalEmails × 100. */
export const coveragePercentage = (c: FinalCounts, totalEmails: number) => percent(c.valid + c.invalid, totalEmails);

export interface CostEstimate {
  unknownCount: number;
  catchAllCount: number;
  totalGapCount: number;
  costPerEmail: number;
  fillUnknownsCost: number;
  fillCatchAllCost: number;
  fillAllGapsCost: number;
  currentCoveragePercentage: number;
  projectedCoveragePercentage: number;
}

/**
 * interface.md §2.4 from the current final results: the gaps are the addresses whose result is
 * Unknown or Catch-All; the projection assumes every gap resolved (the `fill_all_gaps` outcome), so
 * it counts every address that has a result at all (100 once the SMTP stage is complete).
 */
export function costEstimate(c: FinalCounts, totalEmails: number): CostEstimate {
  const totalGapCount = c.unknown + c.catchAll;
  return {
    unknownCount: c.unknown,
    catchAllCount: c.catchAll,
    totalGapCount,
    costPerEmail: microsToDollars(API_PRICE_MICROS),
    fillUnknownsCost: microsToDollars(c.unknown * API_PRICE_MICROS),
    fillCatchAllCost: microsToDollars(c.catchAll * API_PRICE_MICROS),
    fillAllGapsCost: microsToDollars(totalGapCount * API_PRICE_MICROS),
    currentCoveragePercentage: coveragePercentage(c, totalEmails),
    projectedCoveragePercentage: percent(c.valid + c.invalid + totalGapCount, totalEmails),
  };
}

/** Conditions of a verifying worker's surroundings a job reports (CONTRACT §10 `warnings`). */
export const JOB_WARNING_CODES = ['resolver_unreliable', 'smtp_egress_blocked', 'provider_throttled', 'egress_listed', 'egress_identity'] as const;
export interface JobWarning {
  code: (typeof JOB_WARNING_CODES)[number];
  message: string;
}

/**
 * Where a job goes when its SMTP stage ends: `api_only` to the provider when pre-checks passed anything,
 * `smtp_api_fallback` to the user's decision when gaps (Unknown, Catch-All) remain, otherwise done.
 */
export function stageAfterSmtp(method: VerificationMethod, counts: { pendingForApi: number; gaps: number }): VerificationStage {
  if (method === 'api_only') return counts.pendingForApi > 0 ? 'api_verifying' : 'completed';
  return method === 'smtp_api_fallback' && counts.gaps > 0 ? 'awaiting_decision' : 'completed';
}

/** A decision is taken only while the job waits for one. */
export const acceptsDecision = (stage: VerificationStage): boolean => stage === 'awaiting_decision';

export const decisionRefusal = (stage: string) =>
  `A decision is only accepted once, while the job is awaiting_decision (it is ${stage})`;

export const FINISH_DEFERRED_REFUSAL = 'Waiting addresses can be finished only while the job checks mail servers (its SMTP stage)';

export const FINISH_PREDATES_JOB =
  'This job started before deferred addresses could be finished early: they become Unknown when SMTP_GREYLIST_SCHEDULE is spent';

/** What a stored decision answers: the stage the job moved to. */
export interface DecisionResult {
  id: string;
  verificationStage: VerificationStage;
  userDecision: Decision;
  decisionMadeAt: string;
}

/** The user's decision; `catchAllMaxScore` (0–10, fill decisions only) sends only Catch-All results scored at or below it. */
export interface DecisionChoice {
  decision: Decision;
  catchAllMaxScore?: number;
}
