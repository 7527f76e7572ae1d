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
