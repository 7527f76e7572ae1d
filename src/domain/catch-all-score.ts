import { CATCH_ALL_MAX_SCORE, type CatchAllReason } from './catch-all.ts';
import { type EmailTemplate, templatesOf } from './email-templates.ts';

/** A domain's learned template: the most common among its addresses known `Valid`, and how common. */
export interface DomainTemplate {
  template: EmailTemplate;
  /** Its share of the domain's Valid addresses whose template was recognised (0–1). */
  share: number;
  /** How many Valid addresses the share is learned from. */
  seen: number;
}

/** What the service knows about one Catch-All address (CONTRACT §12), gathered before it is scored. */
export interface CatchAllSignals {
  localPart: string;
  /** The lead's names, when a lead of the list holding the address has both. */
  names: { firstName: string; lastName: string } | null;
  domainTemplate: DomainTemplate | null;
  role: boolean;
  /** The mailbox provider accepts every address by policy (Yahoo; a Microsoft tenant whose directory answers for any). */
  providerAcceptsAll: boolean;
  /** The Microsoft directory said it does not know the address. */
  directoryAbsent: boolean;
  /** An enrichment provider returned this address for a person. */
  foundByProvider: boolean;
  /** The organization's latest report of a send to it, when one was made after nothing contradicts it. */
  prior: 'delivered' | 'hard_bounce' | null;
}

export interface CatchAllScore {
  score: number;
  reasons: CatchAllReason[];
}

/**
 * The model (README "The catch-all score"): every Catch-All starts at 5, the middle of the scale, because the
 * server's acceptance says nothing either way; each signal moves it; a prior send outcome overrides all.
 */
export const SCORE_WEIGHTS = {
  base: 5,
  providerAcceptsAll: -1,
  patternMatch: 2,
  /** A strong template (share ≥ STRONG_SHARE over ≥ STRONG_SEEN Valid addresses) adds one more. */
  strongPattern: 1,
  patternMismatch: -2,
  role: 1,
  randomLooking: -3,
  foundByProvider: 2,
  /** The directory's "absent" caps the score: aliases, groups and passwordless users answer it too. */
  directoryAbsentCap: 2,
  priorDeliveredFloor: 8,
} as const;

/** A template counts only once it dominates the domain's known addresses. */
const MIN_SHARE = 0.5;
const MIN_SEEN = 3;
const STRONG_SHARE = 0.8;
const STRONG_SEEN = 5;

// Local parts whose shape alone shows the template, for addresses of people whose names the list does not hold.
const SHAPES: Partial<Record<EmailTemplate, RegExp>> = {
  'first.last': /^[a-z]{2,}\.[a-z]{2,}$/,
  first_last: /^[a-z]{2,}_[a-z]{2,}$/,
  'first-last': /^[a-z]{2,}-[a-z]{2,}$/,
  'f.last': /^[a-z]\.[a-z]{2,}$/,
  'first.l': /^[a-z]{2,}\.[a-z]$/,
};

/** Whether the local part follows the template: by the names when known, else by its shape where that tells. */
function followsTemplate(signals: CatchAllSignals, template: EmailTemplate): boolean | null {
  if (signals.names) {
    return templatesOf(signals.localPart, signals.names.firstName, signals.names.lastName, [template]).length > 0;
  }
  const shape = SHAPES[template];
  return shape ? shape.test(signals.localPart.toLowerCase()) : null;
}

/**
 * Made-up or mistyped local parts: long runs without vowels, long digit runs, hex-like strings. Real people's
 * addresses are made of names, initials and the odd short number.
 */
export function looksRandom(localPart: string): boolean {
  const local = localPart.toLowerCase().replace(/\+.*$/, '');
  const letters = local.replace(/[^a-z]/g, '');
  const digits = local.replace(/[^0-9]/g, '');
  if (digits.length >= 5) return true;
  if (/^[0-9a-f]{12,}$/.test(local) && digits.length >= 3) return true;
  if (/[bcdfghjklmnpqrstvwxz]{5,}/.test(letters)) return true;
  if (letters.length >= 6) {
    const vowels = letters.replace(/[^aeiouy]/g, '').length;
    if (vowels / letters.length < 0.15) return true;
  }
  return false;
}

export function scoreCatchAll(signals: CatchAllSignals): CatchAllScore {
  const reasons: CatchAllReason[] = ['domain_catch_all'];
  if (signals.prior === 'hard_bounce') return { score: 0, reasons: [...reasons, 'prior_bounced'] };
  const w = SCORE_WEIGHTS;
  let score: number = w.base;
  if (signals.providerAcceptsAll) {
    score += w.providerAcceptsAll;
    reasons.push('provider_accepts_all');
  }
  const learned = signals.domainTemplate;
  if (learned && learned.share >= MIN_SHARE && learned.seen >= MIN_SEEN) {
    const follows = followsTemplate(signals, learned.template);
    if (follows === true) {
      score += w.patternMatch + (learned.share >= STRONG_SHARE && learned.seen >= STRONG_SEEN ? w.strongPattern : 0);
      reasons.push('pattern_match');
    } else if (follows === false && !signals.role) {
      score += w.patternMismatch;
      reasons.push('pattern_mismatch');
    }
  }
  if (signals.role) {
    score += w.role;
    reasons.push('role_account');
  }
  if (looksRandom(signals.localPart)) {
    score += w.randomLooking;
    reasons.push('random_looking');
  }
  if (signals.foundByProvider) {
    score += w.foundByProvider;
    reasons.push('found_by_provider');
  }
  if (signals.directoryAbsent) {
    score = Math.min(score, w.directoryAbsentCap);
    reasons.push('directory_absent');
  }
  if (signals.prior === 'delivered') {
    score = Math.max(score, w.priorDeliveredFloor);
    reasons.push('prior_delivered');
  }
  return { score: Math.max(0, Math.min(CATCH_ALL_MAX_SCORE, score)), reasons };
}

/** The most common template among a domain's learned counts, with its share; null when nothing was learned. */
export function dominantTemplate(counts: ReadonlyArray<{ template: EmailTemplate; validCount: number }>): DomainTemplate | null {
  const seen = counts.reduce((sum, c) => sum + c.validCount, 0);
  if (seen === 0) return null;
  const top = counts.reduce((best, c) => (c.validCount > best.validCount ? c : best));
  return { template: top.template, share: top.validCount / seen, seen };
}
