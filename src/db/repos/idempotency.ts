/** Idempotency keys (CONTRACT §9.2): claimed before a request runs, completed with the response it gave. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../entities/common.ts';

/** How long a key holds its response. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

export interface IdempotentRequest {
  organizationId: string;
  key: string;
  method: string;
  path: string;
  /** null for a streamed upload: its hash is known only once the handler has read it (stored by completeKey). */
  bodyHash: string | null;
}

export type Claim =
  | { kind: 'claimed'; id: string }
  | { kind: 'running' }
  | { kind: 'mismatch' }
  | { kind: 'done'; bodyHash: string; status: number; body: string; contentType: string | null };

/**
 * Takes the key for this request, or reports what holds it. The unique (organization, key) index settles a race:
 * of two concurrent first uses exactly one inserts. A key older than the window is taken over as if new.
 */
export async function claimKey(em: EntityManager, r: IdempotentRequest): Promise<Claim> {
  const conn = em.getConnection();
  const id = newId();
  const [taken] = await conn.execute(
    `insert into idempotency_key (id, organization_id, key, method, path, body_hash, status, response, content_type, created_at)
     values (?, ?, ?, ?, ?, ?, null, null, null, now())
     on conflict (organization_id, key) do update
       set id = excluded.id, method = excluded.method, path = excluded.path, body_hash = excluded.body_hash,
           status = null, response = null, content_type = null, created_at = now()
       where idempotency_key.created_at < now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})
     returning id`,
    [id, r.organizationId, r.key, r.method, r.path, r.bodyHash ?? ''],
  );
  if (taken) return { kind: 'claimed', id: taken.id };
  const [row] = await conn.execute(
    `select method, path, body_hash, status, response, content_type from idempotency_key where organization_id = ? and key = ?`,
    [r.organizationId, r.key],
  );
  // Released (a 5xx) between the insert and this read: the caller may simply send it again.
  if (!row) return { kind: 'running' };
  if (row.method !== r.method || row.path !== r.path || (r.bodyHash !== null && row.body_hash !== r.bodyHash)) return { kind: 'mismatch' };
  if (row.status === null) return { kind: 'running' };
  return { kind: 'done', bodyHash: row.body_hash, status: row.status, body: row.response ?? '', contentType: row.content_type };
}

export async function completeKey(
  em: EntityManager,
  id: string,
  response: { status: number; body: string; contentType: string | null; bodyHash: string | null },
): Promise<void> {
  await em
    .getConnection()
    .execute(`update idempotency_key set status = ?, response = ?, content_type = ?, body_hash = coalesce(?, body_hash) where id = ?`, [
      response.status,
      response.body,
      response.contentType,
      response.bodyHash,
      id,
    ]);
}

/** Deletes keys older than the window (they no longer count) in batches, so the delete stays short; answers how many. */
export async function deleteExpiredKeys(em: EntityManager, batch = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await em.getConnection().execute(
      `delete from idempotency_key where id in (
         select id from idempotency_key where created_at < now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS}) limit ?
       ) returning id`,
      [batch],
    );
    total += rows.length;
    if (rows.length < batch) return total;
  }
}

/** Forgets a claim whose request did not give a storable answer, so the same key may be sent again. */
export async function releaseKey(em: EntityManager, id: string): Promise<void> {
  await em.getConnection().execute(`delete from idempotency_key where id = ?`, [id]);
}
