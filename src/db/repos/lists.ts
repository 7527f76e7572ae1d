import type { EntityManager } from '@mikro-orm/postgresql';
import { notFound } from '../../http/errors.ts';
import { List } from '../entities/index.ts';
import type { IList } from '../entities/list.ts';

export async function getList(em: EntityManager, organizationId: string, listId: string): Promise<IList> {
  const list = await em.findOne(List, { id: listId, organization: organizationId });
  if (!list) throw notFound('List');
  return list;
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

export interface ListRow {
  id: string;
  name: string;
  description: string | null;
  leadCount: number;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * A page of lists, newest first, with their lead counts and the total in one round trip (the window
 * count is computed before LIMIT); only a page past the end needs a second query for the total.
 */
export async function pageListsWithCounts(em: EntityManager, organizationId: string, offset: number, limit: number) {
  const rows = await em.execute<
    Array<{ id: string; name: string; description: string | null; lead_count: string; total: string; created_at: Date; updated_at: Date }>
  >(
    `select l.id, l.name, l.description, l.created_at, l.updated_at,
            (select count(*) from lead where lead.list_id = l.id) as lead_count,
            count(*) over () as total
       from lead_list l
      where l.organization_id = ?
      order by l.id desc
      limit ? offset ?`,
    [organizationId, limit, offset],
  );
  const total = rows[0] ? Number(rows[0].total) : await em.count(List, { organization: organizationId });
  const lists: ListRow[] = rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    leadCount: Number(r.lead_count),
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  }));
  return { rows: lists, total };
}

/** Lead counts for a page of lists in one grouped query. */
export async function leadCounts(em: EntityManager, listIds: string[]): Promise<Map<string, number>> {
  if (listIds.length === 0) return new Map();
  const rows = await em.execute<Array<{ list_id: string; n: string }>>(
    `select list_id, count(*) as n from lead where list_id in (${listIds.map(() => '?').join(', ')}) group by list_id`,
    listIds,
  );
  return new Map(rows.map((r) => [r.list_id, Number(r.n)]));
}
