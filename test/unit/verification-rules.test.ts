import { describe, expect, it } from 'vitest';
import {
  costEstimate,
  coveragePercentage,
  gapResultsFor,
  microsToDollars,
  percent,
  stageAfterDecision,
  stageAfterSmtp,
  acceptsDecision,
  VERIFICATION_STAGES,
} from '../../src/domain/verification.ts';

describe('percent', () => {
  it('rounds half away from zero to 2 decimals', () => {
    expect(percent(1, 800)).toBe(0.13); // 0.125
    expect(percent(1, 3)).toBe(33.33);
    expect(percent(2, 3)).toBe(66.67);
    expect(percent(7, 7)).toBe(100);
    expect(percent(0, 0)).toBe(0);
  });
});

describe('money', () => {
  it('renders micro-dollars as dollars without binary noise', () => {
    expect(JSON.stringify(microsToDollars(3 * 500))).toBe('0.0015');
    expect(JSON.stringify(microsToDollars(7 * 500))).toBe('0.0035');
    expect(JSON.stringify(microsToDollars(123_456_789))).toBe('123.456789');
  });
});

describe('cost estimate', () => {
  it('prices the gaps at $0.0005 each and projects every gap resolved', () => {
    const counts = { valid: 8, invalid: 14, catchAll: 2, unknown: 7 };
    expect(costEstimate(counts, 32)).toEqual({
      unknownCount: 7,
      catchAllCount: 2,
      totalGapCount: 9,
      costPerEmail: 0.0005,
      fillUnknownsCost: 0.0035,
      fillCatchAllCost: 0.001,
      fillAllGapsCost: 0.0045,
      currentCoveragePercentage: 68.75,
      // One address (32 - 31) has no result yet.
      projectedCoveragePercentage: 96.88,
    });
    expect(coveragePercentage(counts, 32)).toBe(68.75);
  });
});

describe('decisions', () => {
  it('send only the chosen gaps and move to the matching stage', () => {
    expect(gapResultsFor('accept_current')).toEqual([]);
    expect(gapResultsFor('fill_unknowns_only')).toEqual(['Unknown']);
    expect(gapResultsFor('fill_catchall_only')).toEqual(['Catch-All']);
    expect(gapResultsFor('fill_all_gaps')).toEqual(['Unknown', 'Catch-All']);
    expect(stageAfterDecision('accept_current')).toBe('completed');
    expect(stageAfterDecision('fill_all_gaps')).toBe('api_verifying');
  });
});

describe('the end of the SMTP stage', () => {
  it('smtp_only is done whatever remains unknown', () => {
    expect(stageAfterSmtp('smtp_only', { pendingForApi: 0, gaps: 5 })).toBe('completed');
  });
  it('smtp_api_fallback waits for the decision only when gaps remain', () => {
    expect(stageAfterSmtp('smtp_api_fallback', { pendingForApi: 0, gaps: 1 })).toBe('awaiting_decision');
    expect(stageAfterSmtp('smtp_api_fallback', { pendingForApi: 0, gaps: 0 })).toBe('completed');
  });
  it('api_only goes to the provider when pre-checks passed anything', () => {
    expect(stageAfterSmtp('api_only', { pendingForApi: 3, gaps: 0 })).toBe('api_verifying');
    expect(stageAfterSmtp('api_only', { pendingForApi: 0, gaps: 0 })).toBe('completed');
  });
  it('a decision is taken only while the job awaits one', () => {
    expect(VERIFICATION_STAGES.filter(acceptsDecision)).toEqual(['awaiting_decision']);
  });
});
