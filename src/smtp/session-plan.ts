/**
 * How many sessions a host's waiting addresses are worth. With `sessions` at work on `waiting` addresses, each
 * costing one session `perAddressMs`, they finish after waiting·a / s; one more session, ready after `openMs`
 * (connect, greeting, EHLO), makes it (waiting·a + openMs) / (s + 1). That is sooner exactly when
 * waiting·a > s·openMs: the work left for each session outlasts opening another.
 */
export function anotherSessionPays(plan: { waiting: number; sessions: number; perAddressMs: number; openMs: number }): boolean {
  return plan.waiting * plan.perAddressMs > plan.sessions * plan.openMs;
}

/**
 * The addresses one transaction takes: an even share of those waiting when other sessions of the host are open
 * or opening (a session that took them all would leave the next nothing to ask), at most `batchSize`.
 */
export function shareOf(waiting: number, sessions: number, batchSize: number): number {
  return Math.max(1, Math.min(batchSize, Math.ceil(waiting / Math.max(1, sessions))));
}
