import type { ProviderLimits } from '../domain/mx-provider.ts';

/**
 * First pause after a throttling sign; it doubles with each further sign that comes before the host
 * answered GOOD_REPLIES_FOR_FRESH_START replies well, up to MAX_PAUSE_MS.
 */
const BASE_PAUSE_MS = 250;
const GOOD_REPLIES_FOR_FRESH_START = 3;
const MAX_PAUSE_MS = 60_000;
/** Good replies in a row that earn one more session back (recovery is deliberately slow). */
const GOOD_REPLIES_PER_STEP = 50;
/** A reply this many times slower than the host's usual (and at least TARPIT_MIN_MS) is a tarpit sign. */
const TARPIT_FACTOR = 4;
const TARPIT_MIN_MS = 500;
/**
 * Rejections one trial session may take to learn whether the host punishes them: past Postfix's
 * soft error limit (10), where a tarpit shows as a delayed reply, and far below its hard limit (20).
 */
export const TRIAL_REJECTS = 12;
/** A trial pays off only for a host with this many budgets' worth of addresses waiting. */
const TRIAL_MIN_QUEUE_BUDGETS = 4;

/**
 * What a host does about rejected RCPTs: `unknown` until a trial session shows it; `patient` hosts
 * answered TRIAL_REJECTS rejections in one session without slowing down, and sessions there end
 * only for other reasons; `tarpits` hosts slowed down or hung up (or say they are Postfix), and
 * every session stays within the budget.
 */
export type Patience = 'unknown' | 'trial' | 'patient' | 'tarpits';

/** Where what this process learns about a host is told to the other processes (SharedBudget). */
export interface PacingListener {
  throttled: (pauseMs: number) => void;
  recovered: () => void;
  learnt: (patience: 'patient' | 'tarpits') => void;
}

/**
 * How many sessions one MX host may have right now and when the next may open. Starts at the
 * provider's limit; each throttling sign (421, a 4.7.x rate or reputation reply, a reset
 * connection, replies slowing down) halves it and pauses new sessions, each strike longer; good
 * replies win sessions back one at a time.
 */
export class HostPacing {
  readonly limits: ProviderLimits;
  #allowed: number;
  #strikes = 0;
  #good = 0;
  #goodSinceStrike = 0;
  #pausedUntil = 0;
  #lastOpen = 0;
  /** Moving average of reply delays (ms), null until the first reply. */
  #usualDelay: number | null = null;
  #patience: Patience = 'unknown';
  readonly #listener: PacingListener | null;

  constructor(limits: ProviderLimits, listener: PacingListener | null = null) {
    this.limits = limits;
    this.#allowed = limits.connections;
    this.#listener = listener;
  }

  /** What the other processes learnt of the host (its shared budget), taken over when a session is granted. */
  adopt(allowed: number, patience: 'unknown' | 'patient' | 'tarpits'): void {
    this.#allowed = Math.max(1, Math.min(this.limits.connections, allowed));
    if (patience !== 'unknown' && this.#patience !== 'tarpits') this.#patience = patience;
  }

  get allowed(): number {
    return this.#allowed;
  }

  /** The usual time between two replies of a session (ms): what one more address costs it; null until a reply came. */
  get replyMs(): number | null {
    return this.#usualDelay;
  }

  get patience(): Patience {
    return this.#patience;
  }

  /**
   * Rejected RCPTs a new session may spend. The provider's budget, except on a host that proved
   * patient (none), and for one trial session on an unknown host with enough work queued for the
   * lesson to pay (TRIAL_REJECTS; the session learns the answer before it spends them all).
   */
  sessionBudget(queued: number): number {
    if (this.#patience === 'patient') return Number.POSITIVE_INFINITY;
    if (!this.#trialPays(queued)) return this.limits.rejectsPerSession;
    this.#patience = 'trial';
    return TRIAL_REJECTS;
  }

  /**
   * A trial runs, or the next session would begin one: until its answer, a session beside it could spend only the
   * provider's budget of rejections, so it is not worth its opening.
   */
  trialPending(queued: number): boolean {
    return this.#patience === 'trial' || this.#trialPays(queued);
  }

  #trialPays(queued: number): boolean {
    const budget = this.limits.rejectsPerSession;
    return this.#patience === 'unknown' && budget < TRIAL_REJECTS && queued >= TRIAL_MIN_QUEUE_BUDGETS * budget;
  }

  /** A session's rejections so far, all answered without a tarpit sign: a trial may now be decided. */
  rejectionsAnswered(rejects: number): void {
    if (this.#patience === 'trial' && rejects >= TRIAL_REJECTS) {
      this.#patience = 'patient';
      this.#listener?.learnt('patient');
    }
  }

  /** The trial session ended before deciding anything (a drop, nothing left to ask): try again later. */
  trialUndecided(): void {
    if (this.#patience === 'trial') this.#patience = 'unknown';
  }

  /** The host punishes rejections (a tarpit sign, a hang-up after them, a Postfix banner): budget for good. */
  punishesRejections(): void {
    if (this.#patience !== 'tarpits') this.#listener?.learnt('tarpits');
    this.#patience = 'tarpits';
  }

  /** Milliseconds until a new session may open (0: now). */
  waitBeforeOpen(now = Date.now()): number {
    return Math.max(0, this.#pausedUntil - now, this.#lastOpen + this.limits.connectIntervalMs - now);
  }

  opened(now = Date.now()): void {
    this.#lastOpen = now;
  }

  throttled(now = Date.now()): void {
    this.#strikes = this.#goodSinceStrike >= GOOD_REPLIES_FOR_FRESH_START ? 1 : this.#strikes + 1;
    this.#good = 0;
    this.#goodSinceStrike = 0;
    this.#allowed = Math.max(1, Math.floor(this.#allowed / 2));
    const pause = Math.min(MAX_PAUSE_MS, BASE_PAUSE_MS * 2 ** (this.#strikes - 1));
    this.#pausedUntil = Math.max(this.#pausedUntil, now + pause);
    this.#listener?.throttled(pause);
  }

  /** A reply took `delayMs`; returns true when that looks like a tarpit (and counts as a strike). */
  replied(delayMs: number, now = Date.now()): boolean {
    const usual = this.#usualDelay;
    if (usual !== null && delayMs > Math.max(TARPIT_MIN_MS, usual * TARPIT_FACTOR)) {
      this.throttled(now);
      this.punishesRejections();
      return true;
    }
    this.#usualDelay = usual === null ? delayMs : usual * 0.9 + delayMs * 0.1;
    this.#good += 1;
    this.#goodSinceStrike += 1;
    if (this.#good >= GOOD_REPLIES_PER_STEP) {
      this.#good = 0;
      if (this.#allowed < this.limits.connections) {
        this.#allowed += 1;
        this.#listener?.recovered();
      } else this.#strikes = Math.max(0, this.#strikes - 1);
    }
    return false;
  }
}
