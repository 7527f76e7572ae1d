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

// Takes the host's budget row lock (creating the row on first use): every acquire for one (egress, host)
// queues here, so no two processes can both see room for the last slot.
const LOCK_BUDGET = `
insert into smtp_host_budget as h (egress, host, allowed, next_open_at, paused_until, patience, updated_at)
values ($1, $2, $3, clock_timestamp(), clock_timestamp(), 'unknown', clock_timestamp())
on conflict (egress, host) do update set egress = h.egress
returning least(h.allowed, $3) as allowed, h.patience,
  ceil(greatest(0, extract(epoch from greatest(h.next_open_at, h.paused_until) - clock_timestamp()) * 1000))::int as wait_ms`;

// Under that lock, in a statement of its own (READ COMMITTED: a snapshot taken after the previous holder of
// the lock committed, so its lease is counted): the lease if a slot is free, the least interval started,
// and the host's expired leases (a dead worker's) cleared.
const TAKE_SLOT = `
with live as (
  select count(*)::int as n from smtp_lease where egress = $1 and host = $2 and expires_at > clock_timestamp()
), taken as (
  insert into smtp_lease (id, egress, host, holder, expires_at)
  select $3, $1, $2, $4, clock_timestamp() + $5 * interval '1 millisecond' from live where live.n < $6
  returning id
), opened as (
  update smtp_host_budget set next_open_at = clock_timestamp() + $7 * interval '1 millisecond', updated_at = clock_timestamp()
  where egress = $1 and host = $2 and exists (select 1 from taken)
), purged as (
  delete from smtp_lease where egress = $1 and host = $2 and expires_at <= clock_timestamp()
)
select (select count(*) from taken)::int as taken`;

/** Every statement on the budget tables (exported for the test that EXPLAINs them on 100k+ rows). */
export const SMTP_BUDGET_SQL = {
  lockBudget: LOCK_BUDGET,
  takeSlot: TAKE_SLOT,
  renew: `update smtp_lease set expires_at = clock_timestamp() + $2 * interval '1 millisecond' where id = any($1::uuid[]) returning id`,
  release: 'delete from smtp_lease where id = $1',
  throttle: `update smtp_host_budget set allowed = greatest(1, allowed / 2),
    paused_until = greatest(paused_until, clock_timestamp() + $3 * interval '1 millisecond'), updated_at = clock_timestamp()
    where egress = $1 and host = $2`,
  recover: `update smtp_host_budget set allowed = least($3, allowed + 1), updated_at = clock_timestamp()
    where egress = $1 and host = $2 and allowed < $3`,
  patience: `update smtp_host_budget set patience = $3, updated_at = clock_timestamp()
    where egress = $1 and host = $2 and patience <> 'tarpits'`,
} as const;

/**
 * One try at a session lease `id` for `holder`: taken, or how long to wait. One transaction, four round trips
 * (BEGIN, the row lock, the slot, COMMIT); `clock_timestamp()`, not `now()`, so a caller that waited for the
 * lock does not date its lease from before the wait.
 */
export async function acquireLease(
  pool: Pool,
  key: BudgetKey,
  limits: { connections: number; connectIntervalMs: number },
  lease: { id: string; holder: string; ttlMs: number },
): Promise<LeaseAnswer> {
  const client = await pool.connect();
  let broken: unknown = undefined;
  try {
    await client.query('begin');
    const locked = await client.query<{ allowed: number; patience: SharedPatience; wait_ms: number }>({
      name: 'smtp_budget_lock',
      text: SMTP_BUDGET_SQL.lockBudget,
      values: [key.egress, key.host, limits.connections],
    });
    const budget = locked.rows[0];
    if (!budget) throw new Error('smtp_host_budget upsert returned no row');
    let waitMs = budget.wait_ms;
    if (waitMs === 0) {
      const slot = await client.query<{ taken: number }>({
        name: 'smtp_lease_take',
        text: SMTP_BUDGET_SQL.takeSlot,
        values: [key.egress, key.host, lease.id, lease.holder, lease.ttlMs, budget.allowed, limits.connectIntervalMs],
      });
      if (slot.rows[0]?.taken !== 1) waitMs = -1;
    }
    await client.query('commit');
    return { waitMs, allowed: budget.allowed, patience: budget.patience };
  } catch (error) {
    broken = error;
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    // A connection that failed mid-transaction is not handed out again.
    client.release(broken instanceof Error ? broken : undefined);
  }
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

export async function releaseLease(pool: Pool, id: string): Promise<void> {
  await pool.query({ name: 'smtp_lease_release', text: SMTP_BUDGET_SQL.release, values: [id] });
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
