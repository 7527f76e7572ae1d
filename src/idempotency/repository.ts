/** Idempotency keys (CONTRACT §9.2): claimed before a request runs, completed with the response it gave. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { newId } from '../db/entities/common.ts';
import { kysely } from '../db/kysely.ts';

/** How long a key holds its response. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
const WINDOW_START = sql<Date>`now() - make_interval(hours => ${sql.lit(IDEMPOTENCY_WINDOW_HOURS)})`;

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
  const taken = await kysely(em)
    .insertInto('idempotency_key')
    .values({
      id: newId(),
      organization: r.organizationId,
      key: r.key,
      method: r.method,
      path: r.path,
      bodyHash: r.bodyHash ?? '',
      status: null,
      response: null,
      contentType: null,
      createdAt: sql<Date>`now()`,
    })
    .onConflict((oc) =>
      oc
        .columns(['organization', 'key'])
        .doUpdateSet((eb) => ({
          id: eb.ref('excluded.id'),
          method: eb.ref('excluded.method'),
          path: eb.ref('excluded.path'),
          bodyHash: eb.ref('excluded.bodyHash'),
          status: null,
          response: null,
          contentType: null,
          createdAt: sql<Date>`now()`,
        }))
        .where('idempotency_key.createdAt', '<', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`),
    )
    .returning('id')
    .executeTakeFirst();
  if (taken) return { kind: 'claimed', id: taken.id };
  const row = await kysely(em)
    .selectFrom('idempotency_key')
    .select(['method', 'path', 'bodyHash', 'status', 'response', 'contentType'])
    .where('organization', '=', r.organizationId)
    .where('key', '=', r.key)
    .executeTakeFirst();
  // Released (a 5xx) between the insert and this read: the caller may simply send it again.
  if (!row) return { kind: 'running' };
  if (row.method !== r.method || row.path !== r.path || (r.bodyHash !== null && row.bodyHash !== r.bodyHash)) return { kind: 'mismatch' };
  if (row.status === null) return { kind: 'running' };
  return { kind: 'done', bodyHash: row.bodyHash, status: row.status, body: row.response ?? '', contentType: row.contentType };
}

export async function completeKey(
  em: EntityManager,
  id: string,
  response: { status: number; body: string; contentType: string | null; bodyHash: string | null },
): Promise<void> {
  await kysely(em)
    .updateTable('idempotency_key')
    .set((eb) => ({
      status: response.status,
      response: response.body,
      contentType: response.contentType,
      bodyHash: eb.fn.coalesce(eb.val(response.bodyHash), eb.ref('bodyHash')),
    }))
    .where('id', '=', id)
    .execute();
}

/** Deletes keys older than the window (they no longer count) in batches, so the delete stays short; answers how many. */
export async function deleteExpiredKeys(em: EntityManager, batch = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await kysely(em)
      .deleteFrom('idempotency_key')
      .where('id', 'in', (eb) => eb.selectFrom('idempotency_key').select('id').where('createdAt', '<', WINDOW_START).limit(batch))
      .returning('id')
      .execute();
    total += rows.length;
    if (rows.length < batch) return total;
  }
}

/** Forgets a claim whose request did not give a storable answer, so the same key may be sent again. */
export async function releaseKey(em: EntityManager, id: string): Promise<void> {
  await kysely(em).deleteFrom('idempotency_key').where('id', '=', id).execute();
}
