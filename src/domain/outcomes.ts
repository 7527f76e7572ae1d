/** What the user reports of a send (CONTRACT §12 outcomes). */
export const SEND_OUTCOMES = ['delivered', 'bounced'] as const;
export type SendOutcomeKind = (typeof SEND_OUTCOMES)[number];
export const BOUNCE_TYPES = ['hard', 'soft'] as const;
export type BounceType = (typeof BOUNCE_TYPES)[number];

/** Outcomes one request may report. */
export const MAX_OUTCOMES_PER_REQUEST = 10_000;
