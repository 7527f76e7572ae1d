import type { Pool } from 'pg';

export interface BudgetKey {
  egress: string;
  host: string;
}

/** What a host taught about rejected RCPTs, as every process sees it (see HostPacing's Patience). */
export type SharedPatience = 'unknown' | 'patient' | 'tarpits';

export interface LeaseAnswer {
  /** 0: the lease is taken; > 0: ms until a new session may open; -1: every slot is held. */
  waitMs: number;
  /** Sessions the host allows now (its limit, or less after throttling). */
  allowed: number;
  patience: SharedPatience;
}

/** Every statement on the budget tables (exported for the test that EXPLAINs them on 100k+ rows). */
export const SMTP_BUDGET_SQL = {
  // Each lease's row lock and slot, a batch of them in one round trip (the functions' statements: see their migrations).
  acquire: `select lease_index, lease_wait_ms, lease_allowed, lease_patience
    from smtp_lease_acquire_many($1::varchar[], $2::varchar[], $3::int[], $4::uuid[], $5, $6, $7::int[])`,
  renew: `update smtp_lease set expires_at = clock_timestamp() + $2 * interval '1 millisecond' where id = any($1::uuid[]) returning id`,
  release: 'delete from smtp_lease where id = any($1::uuid[])',
  throttle: `update smtp_host_budget set allowed = greatest(1, allowed / 2),
    paused_until = greatest(paused_until, clock_timestamp() + $3 * interval '1 millisecond'), updated_at = clock_timestamp()
    where egress = $1 and host = $2`,
  recover: `update smtp_host_budget set allowed = least($3, allowed + 1), updated_at = clock_timestamp()
    where egress = $1 and host = $2 and allowed < $3`,
  patience: `update smtp_host_budget set patience = $3, updated_at = clock_timestamp()
    where egress = $1 and host = $2 and patience <> 'tarpits'`,
} as const;

/** One try at a session lease. */
export interface LeaseRequest {
  key: BudgetKey;
  limits: { connections: number; connectIntervalMs: number };
  id: string;
}

/** One try at each lease for `holder`, in one round trip: taken, or how long to wait, in the order asked. */
export async function acquireLeases(
  pool: Pool,
  requests: readonly LeaseRequest[],
  lease: { holder: string; ttlMs: number },
): Promise<LeaseAnswer[]> {
  const { rows } = await pool.query<{ lease_index: number; lease_wait_ms: number; lease_allowed: number; lease_patience: SharedPatience }>({
    name: 'smtp_lease_acquire',
    text: SMTP_BUDGET_SQL.acquire,
    values: [
      requests.map((r) => r.key.egress),
      requests.map((r) => r.key.host),
      requests.map((r) => r.limits.connections),
      requests.map((r) => r.id),
      lease.holder,
      lease.ttlMs,
      requests.map((r) => r.limits.connectIntervalMs),
    ],
  });
  if (rows.length !== requests.length) throw new Error(`smtp_lease_acquire_many answered ${rows.length} of ${requests.length} leases`);
  const answers = new Array<LeaseAnswer>(requests.length);
  for (const row of rows)
    answers[row.lease_index - 1] = { waitMs: row.lease_wait_ms, allowed: row.lease_allowed, patience: row.lease_patience };
  return answers;
}

/**
 * Pushes the expiry of a process's live leases on; a lease that already expired (and was cleared by another
 * process) is gone and stays gone. Answers the ids still held.
 */
export async function renewLeases(pool: Pool, ids: readonly string[], ttlMs: number): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await pool.query<{ id: string }>({
    name: 'smtp_lease_renew',
    text: SMTP_BUDGET_SQL.renew,
    values: [ids, ttlMs],
  });
  return new Set(rows.map((row) => row.id));
}

export async function releaseLeases(pool: Pool, ids: readonly string[]): Promise<void> {
  await pool.query({ name: 'smtp_lease_release', text: SMTP_BUDGET_SQL.release, values: [ids] });
}

/** A throttling sign: the host's sessions halve for everyone and no new one opens for `pauseMs`. */
export async function throttleHost(pool: Pool, key: BudgetKey, pauseMs: number): Promise<void> {
  await pool.query({
    name: 'smtp_budget_throttle',
    text: SMTP_BUDGET_SQL.throttle,
    values: [key.egress, key.host, pauseMs],
  });
}

/** Good replies won one session back, up to the host's limit. */
export async function recoverHost(pool: Pool, key: BudgetKey, limit: number): Promise<void> {
  await pool.query({
    name: 'smtp_budget_recover',
    text: SMTP_BUDGET_SQL.recover,
    values: [key.egress, key.host, limit],
  });
}

/** What the host does about rejections, once learnt; a host found to tarpit is never called patient again. */
export async function learnPatience(pool: Pool, key: BudgetKey, patience: 'patient' | 'tarpits'): Promise<void> {
  await pool.query({
    name: 'smtp_budget_patience',
    text: SMTP_BUDGET_SQL.patience,
    values: [key.egress, key.host, patience],
  });
}
