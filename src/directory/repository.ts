import type { Pool } from 'pg';

/** A canary's cached verdict: what the tenant answers for an address that cannot exist. */
export type CachedTenantVerdict = 'honest' | 'accepts_all';

/**
 * Every statement on the directory tables, raw SQL because each is one atomic read-modify-write that the query
 * builder cannot say: `greatest(...)` over the row's own value in an upsert, and `RETURNING` what it reserved.
 * `clock_timestamp()`, not `now()`: the time the statement ran, not when its transaction began.
 */
export const DIRECTORY_SQL = {
  // The slot is the later of "now" and the row's next_at; next_at moves `slots` intervals past it. Every process's
  // reservation queues on the one row, so no two get the same slot. Answers how long to wait for the slot.
  reserve: `
insert into directory_pacer as p (name, next_at) values ($1, clock_timestamp() + $2::int * $3::float8 * interval '1 millisecond')
on conflict (name) do update set next_at = greatest(p.next_at, clock_timestamp()) + $2::int * $3::float8 * interval '1 millisecond'
returning greatest(0, ceil(extract(epoch from p.next_at - $2::int * $3::float8 * interval '1 millisecond' - clock_timestamp()) * 1000))::int as wait_ms`,
  // Claims the canary of a domain whose verdict is missing or older than the TTL, unless another process's claim
  // still runs. No row back: not claimed (read the state to see why).
  claimTenant: `
insert into directory_tenant as t (domain, asking_until) values ($1, clock_timestamp() + $3 * interval '1 millisecond')
on conflict (domain) do update set asking_until = excluded.asking_until
  where (t.checked_at is null or t.checked_at <= clock_timestamp() - $2 * interval '1 millisecond')
    and (t.asking_until is null or t.asking_until <= clock_timestamp())
returning domain`,
  readTenant: `
select case when checked_at > clock_timestamp() - $2 * interval '1 millisecond' then verdict end as fresh_verdict,
  coalesce(asking_until > clock_timestamp(), false) as asking
from directory_tenant where domain = $1`,
  storeTenant: `update directory_tenant set verdict = $2, checked_at = clock_timestamp(), asking_until = null where domain = $1`,
  releaseTenant: `update directory_tenant set asking_until = null where domain = $1`,
} as const;

/**
 * Reserves `slots` consecutive intervals of `intervalMs` on the named pace. Answers the ms until the first one, and
 * `sentAt` (performance.now()) when the statement left: time spent waiting for a pooled connection is not counted.
 */
export async function reservePace(pool: Pool, name: string, slots: number, intervalMs: number): Promise<{ waitMs: number; sentAt: number }> {
  const client = await pool.connect();
  try {
    const sentAt = performance.now();
    const result = await client.query<{ wait_ms: number }>({
      name: 'directory_pace_reserve',
      text: DIRECTORY_SQL.reserve,
      values: [name, slots, intervalMs],
    });
    const row = result.rows[0];
    if (!row) throw new Error('directory_pacer upsert returned no row');
    return { waitMs: row.wait_ms, sentAt };
  } finally {
    client.release();
  }
}

/** True when this caller now asks the domain's canary (for at most `claimMs`). */
export async function claimTenant(pool: Pool, domain: string, ttlMs: number, claimMs: number): Promise<boolean> {
  const result = await pool.query({ name: 'directory_tenant_claim', text: DIRECTORY_SQL.claimTenant, values: [domain, ttlMs, claimMs] });
  return result.rowCount === 1;
}

export interface TenantState {
  /** The verdict when younger than the TTL. */
  verdict: CachedTenantVerdict | null;
  /** Another process is asking the canary right now. */
  asking: boolean;
}

export async function readTenant(pool: Pool, domain: string, ttlMs: number): Promise<TenantState> {
  const result = await pool.query<{ fresh_verdict: CachedTenantVerdict | null; asking: boolean }>({
    name: 'directory_tenant_read',
    text: DIRECTORY_SQL.readTenant,
    values: [domain, ttlMs],
  });
  const row = result.rows[0];
  return { verdict: row?.fresh_verdict ?? null, asking: row?.asking ?? false };
}

export async function storeTenant(pool: Pool, domain: string, verdict: CachedTenantVerdict): Promise<void> {
  await pool.query({ name: 'directory_tenant_store', text: DIRECTORY_SQL.storeTenant, values: [domain, verdict] });
}

/** Ends a claim whose canary got no verdict: nothing is cached, the next caller asks again. */
export async function releaseTenant(pool: Pool, domain: string): Promise<void> {
  await pool.query({ name: 'directory_tenant_release', text: DIRECTORY_SQL.releaseTenant, values: [domain] });
}
