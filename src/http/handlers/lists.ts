/**
 * Bodies of the list routes, shared by the session routes (`/api/lists`) and the API-key routes
 * (`/api/external/lists`): each route file declares its own contract and auth, then calls one of these.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import type { IList } from '../../db/entities/list.ts';
import { findLeadsByIds, insertLeads } from '../../db/repos/leads.ts';
import { createList, deleteList, getList, leadCounts, updateList } from '../../db/repos/lists.ts';
import { type LeadFilter, pageLeadRows, pageListRows } from '../../db/repos/pages.ts';
import type { LeadSource } from '../../domain/lead.ts';
import { offsetOf, paginated, type PageQuery } from '../schemas/common.ts';
import { type LeadInput } from '../../domain/lead-input.ts';
import { type LeadDto, toLeadDto } from '../schemas/lead.ts';
import { toListDto } from '../schemas/list.ts';

async function withLeadCount(em: EntityManager, list: IList) {
  const counts = await leadCounts(em, [list.id]);
  return toListDto(list, counts.get(list.id) ?? 0);
}

export async function createListDto(em: EntityManager, organizationId: string, input: { name: string; description?: string | null }) {
  return toListDto(await createList(em, organizationId, input), 0);
}

export async function pageListDtos(pool: Pool, organizationId: string, page: PageQuery) {
  const { rows, total } = await pageListRows(pool, organizationId, offsetOf(page), page.limit);
  return paginated(rows, total, page);
}

export async function getListDto(em: EntityManager, organizationId: string, listId: string) {
  return withLeadCount(em, await getList(em, organizationId, listId));
}

export async function updateListDto(
  em: EntityManager,
  organizationId: string,
  listId: string,
  input: { name?: string; description?: string | null },
) {
  return withLeadCount(em, await updateList(em, await getList(em, organizationId, listId), input));
}

export async function deleteListOf(em: EntityManager, organizationId: string, listId: string) {
  await deleteList(em, await getList(em, organizationId, listId));
}

export async function pageListLeadDtos(
  em: EntityManager,
  pool: Pool,
  organizationId: string,
  listId: string,
  query: PageQuery & Pick<LeadFilter, 'emailStatus' | 'search'>,
) {
  const list = await getList(em, organizationId, listId);
  const filter = { listId: list.id, emailStatus: query.emailStatus, search: query.search };
  const { rows, total } = await pageLeadRows<LeadDto>(pool, organizationId, filter, offsetOf(query), query.limit);
  return paginated(rows, total, query);
}

export async function addLeadsToList(em: EntityManager, organizationId: string, listId: string, inputs: LeadInput[], source: LeadSource) {
  const list = await getList(em, organizationId, listId);
  const ids = await em.transactional((tx) => insertLeads(tx, organizationId, list.id, inputs, source));
  const leads = await findLeadsByIds(em, ids);
  return { created: ids.length, leads: leads.map(toLeadDto) };
}
