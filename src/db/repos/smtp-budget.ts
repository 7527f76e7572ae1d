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

/** One call of `smtp_lease_acquire` (see its migration): a lease `id` for `holder`, or how long to wait. */
export async function acquireLease(
  pool: Pool,
  key: BudgetKey,
  limits: { connections: number; connectIntervalMs: number },
  lease: { id: string; holder: string; ttlMs: number },
): Promise<LeaseAnswer> {
  const result = await pool.query<{ wait_ms: number; allowed: number; patience: SharedPatience }>({
    name: 'smtp_lease_acquire',
    text: 'select wait_ms, allowed, patience from smtp_lease_acquire($1, $2, $3, $4, $5, $6, $7)',
    values: [key.egress, key.host, limits.connections, limits.connectIntervalMs, lease.ttlMs, lease.id, lease.holder],
  });
  const row = result.rows[0];
  if (!row) throw new Error('smtp_lease_acquire returned no row');
  return { waitMs: row.wait_ms, allowed: row.allowed, patience: row.patience };
}

/** Pushes the expiry of a process's live leases on; a lease that already expired is gone and stays gone. */
export async function renewLeases(pool: Pool, ids: readonly string[], ttlMs: number): Promise<void> {
  if (ids.length === 0) return;
  await pool.query({
    name: 'smtp_lease_renew',
    text: `update smtp_lease set expires_at = clock_timestamp() + $2 * interval '1 millisecond' where id = any($1::uuid[])`,
    values: [ids, ttlMs],
  });
}

export async function releaseLease(pool: Pool, id: string): Promise<void> {
  await pool.query({ name: 'smtp_lease_release', text: 'delete from smtp_lease where id = $1', values: [id] });
}

/** A throttling sign: the host's sessions halve for everyone and no new one opens for `pauseMs`. */
export async function throttleHost(pool: Pool, key: BudgetKey, pauseMs: number): Promise<void> {
  await pool.query({
    name: 'smtp_budget_throttle',
    text: `update smtp_host_budget set allowed = greatest(1, allowed / 2),
             paused_until = greatest(paused_until, clock_timestamp() + $3 * interval '1 millisecond'), updated_at = clock_timestamp()
           where egress = $1 and host = $2`,
    values: [key.egress, key.host, pauseMs],
  });
}

/** Good replies won one session back, up to the host's limit. */
export async function recoverHost(pool: Pool, key: BudgetKey, limit: number): Promise<void> {
  await pool.query({
    name: 'smtp_budget_recover',
    text: `update smtp_host_budget set allowed = least($3, allowed + 1), updated_at = clock_timestamp()
           where egress = $1 and host = $2 and allowed < $3`,
    values: [key.egress, key.host, limit],
  });
}

/** What the host does about rejections, once learnt; a host found to tarpit is never called patient again. */
export async function learnPatience(pool: Pool, key: BudgetKey, patience: 'patient' | 'tarpits'): Promise<void> {
  await pool.query({
    name: 'smtp_budget_patience',
    text: `update smtp_host_budget set patience = $3, updated_at = clock_timestamp()
           where egress = $1 and host = $2 and patience <> 'tarpits'`,
    values: [key.egress, key.host, patience],
  });
}
