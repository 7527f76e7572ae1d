import { type SelectQueryBuilder, sql } from 'kysely';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { entities } from './entities/index.ts';

const NAMING = { columnNamingStrategy: 'property', convertValues: true } as const;

/**
 * The schema as the query builder sees it, inferred from the entity definitions: tables by their snake_case
 * names, columns by their property names (`controlVersion`, `organization` for `organization_id`). Rows come
 * back keyed and typed the same way, values converted by the entities' types (timestamps as `Date`), so
 * repositories map no snake_case columns by hand. An aliased column (`'j.list as listId'`) keeps its raw value.
 */
export type Database = InferKyselyDB<(typeof entities)[number], typeof NAMING>;

/** The typed query builder on this EntityManager (inside its transaction, when it has one). */
export const kysely = (em: EntityManager) => em.getKysely<Database>(NAMING);

/** Tables whose rows a page lists newest first: time-ordered UUIDv7 ids, so `id desc` is by creation and unique. */
type PagedTable = 'verification_job' | 'scrape_job' | 'enrichment_job';

/** A page of the rows `kept` keeps (whole rows, newest first) and how many it keeps, the two read at once. */
export async function newestFirst<T extends PagedTable>(kept: SelectQueryBuilder<Database, T, object>, offset: number, limit: number) {
  const [rows, counted] = await Promise.all([
    kept.selectAll().orderBy('id', 'desc').offset(offset).limit(limit).execute(),
    kept.select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: counted.n };
}
