import type { MxProvider } from './mx-provider.ts';

/** What showed who hosts a domain's mailboxes (CONTRACT §12 `mailboxProviderSignals`). */
export const MAILBOX_SIGNALS = ['mx', 'spf', 'autodiscover', 'eop'] as const;
export type MailboxSignal = (typeof MAILBOX_SIGNALS)[number];

/** Who hosts a domain's mailboxes, and the DNS facts that showed it. */
export interface MailboxHost {
  provider: MxProvider;
  signals: MailboxSignal[];
}

/** Why a Catch-All result has its score (CONTRACT §12 `catchAllReasons`). */
export const CATCH_ALL_REASONS = [
  'domain_catch_all',
  'provider_accepts_all',
  'directory_absent',
  'pattern_match',
  'pattern_mismatch',
  'role_account',
  'random_looking',
  'found_by_provider',
  'prior_delivered',
  'prior_bounced',
] as const;
export type CatchAllReason = (typeof CATCH_ALL_REASONS)[number];

/** Scores run 0 (most likely to bounce) to 10 (most likely deliverable). */
export const CATCH_ALL_MAX_SCORE = 10;
export const CATCH_ALL_SCORES = Array.from({ length: CATCH_ALL_MAX_SCORE + 1 }, (_, score) => score);
