import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { notFound } from '../../errors.ts';
import { List } from '../entities/index.ts';
import type { IList } from '../entities/list.ts';
import { kysely } from '../kysely.ts';

export async function getList(em: EntityManager, organizationId: string, listId: string): Promise<IList> {
  const list = await em.findOne(List, { id: listId, organization: organizationId });
  if (!list) throw notFound('List');
  return list;
}

/** `getList` on the integration-access pool, for the page routes that fork no EntityManager; answers the list's name. */
export async function requireList(pool: Pool, organizationId: string, listId: string): Promise<string> {
  const { rows } = await pool.query<{ name: string }>({
    name: 'list_name_of_organization',
    text: 'select name from lead_list where id = $1 and organization_id = $2',
    values: [listId, organizationId],
  });
  if (rows.length === 0) throw notFound('List');
  return rows[0]!.name;
}

export async function createList(em: EntityManager, organizationId: string, input: { name: string; description?: string | null }) {
  const list = em.create(List, { organization: organizationId, name: input.name, description: input.description ?? null });
  await em.flush();
  return list;
}

export async function updateList(em: EntityManager, list: IList, input: { name?: string; description?: string | null }) {
  if (input.name !== undefined) list.name = input.name;
  if (input.description !== undefined) list.description = input.description ?? null;
  await em.flush();
  return list;
}

/** Leads go with their list (ON DELETE CASCADE). */
export async function deleteList(em: EntityManager, list: IList) {
  await em.nativeDelete(List, { id: list.id });
}

/** Lead counts for a page of lists in one grouped query. */
export async function leadCounts(em: EntityManager, listIds: string[]): Promise<Map<string, number>> {
  if (listIds.length === 0) return new Map();
  const rows = await kysely(em)
    .selectFrom('lead')
    .select((eb) => ['list', eb.fn.countAll().as('n')])
    .where('list', 'in', listIds)
    .groupBy('list')
    .execute();
  return new Map(rows.map((r) => [r.list, Number(r.n)]));
}
