import { describe, expect, it } from 'vitest';
import { HostPacing, TRIAL_REJECTS } from '../../src/smtp/pacing.ts';

const limits = { connections: 2, connectIntervalMs: 0, window: 50, rejectsPerSession: 8 };

describe('HostPacing rejection budget', () => {
  it('keeps the provider budget while too little work waits for a trial to pay', () => {
    const pacing = new HostPacing(limits);
    expect(pacing.sessionBudget(31)).toBe(8);
    expect(pacing.patience).toBe('unknown');
  });

  it('runs one trial at a time, and lifts the budget once the host took TRIAL_REJECTS rejections promptly', () => {
    const pacing = new HostPacing(limits);
    expect(pacing.sessionBudget(100)).toBe(TRIAL_REJECTS);
    expect(pacing.patience).toBe('trial');
    // A second session while the trial runs stays within the budget.
    expect(pacing.sessionBudget(100)).toBe(8);
    pacing.rejectionsAnswered(TRIAL_REJECTS - 1);
    expect(pacing.patience).toBe('trial');
    pacing.rejectionsAnswered(TRIAL_REJECTS);
    expect(pacing.patience).toBe('patient');
    expect(pacing.sessionBudget(1)).toBe(Number.POSITIVE_INFINITY);
  });

  it('says a trial is pending from the moment one would begin until it is decided', () => {
    const pacing = new HostPacing(limits);
    expect(pacing.trialPending(31)).toBe(false);
    expect(pacing.trialPending(32)).toBe(true);
    pacing.sessionBudget(100);
    expect(pacing.trialPending(0)).toBe(true);
    pacing.rejectionsAnswered(TRIAL_REJECTS);
    expect(pacing.trialPending(100)).toBe(false);
  });

  it('tries again after a trial that ended undecided', () => {
    const pacing = new HostPacing(limits);
    pacing.sessionBudget(100);
    pacing.trialUndecided();
    expect(pacing.patience).toBe('unknown');
    expect(pacing.sessionBudget(100)).toBe(TRIAL_REJECTS);
  });

  it('keeps the budget for good on a host whose replies slowed down, even one that had proved patient', () => {
    const pacing = new HostPacing(limits);
    pacing.sessionBudget(100);
    pacing.rejectionsAnswered(TRIAL_REJECTS);
    pacing.replied(10, 0);
    expect(pacing.replied(1_000, 1)).toBe(true);
    expect(pacing.patience).toBe('tarpits');
    expect(pacing.sessionBudget(1_000)).toBe(8);
  });

  it('needs no trial when the configured budget already reaches past it', () => {
    const pacing = new HostPacing({ ...limits, rejectsPerSession: 50 });
    expect(pacing.sessionBudget(1_000)).toBe(50);
    expect(pacing.patience).toBe('unknown');
  });
});

describe('HostPacing and the budget shared with other processes', () => {
  it('tells what it learns (throttling and its pause, a session won back, patience) and takes over what others learnt', () => {
    const told: string[] = [];
    const pacing = new HostPacing(
      { ...limits, connections: 4 },
      {
        throttled: (pauseMs) => told.push(`throttled ${pauseMs}`),
        recovered: () => told.push('recovered'),
        learnt: (patience) => told.push(`learnt ${patience}`),
      },
    );
    pacing.throttled(0);
    expect(pacing.allowed).toBe(2);
    for (let i = 0; i < 50; i += 1) pacing.replied(10, 1_000 + i);
    expect(pacing.allowed).toBe(3);
    pacing.sessionBudget(100);
    pacing.rejectionsAnswered(TRIAL_REJECTS);
    pacing.punishesRejections();
    expect(told).toEqual(['throttled 250', 'recovered', 'learnt patient', 'learnt tarpits']);

    // Another process halved the host and found it patient: this one follows, within its own limit.
    const other = new HostPacing({ ...limits, connections: 4 });
    other.adopt(1, 'patient');
    expect([other.allowed, other.patience]).toEqual([1, 'patient']);
    other.adopt(9, 'unknown');
    expect([other.allowed, other.patience]).toEqual([4, 'patient']);
    // What a process saw itself (a tarpit) is not undone by another's older news.
    other.punishesRejections();
    other.adopt(4, 'patient');
    expect(other.patience).toBe('tarpits');
  });
});
