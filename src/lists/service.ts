/**
 * Lists and their leads, shared by the session routes (`/api/lists`, `/api/leads`) and the API-key routes
 * (`/api/external/...`): each route file declares its own contract and auth, then calls one of these.
 */
import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { importLeadCsv } from '../csv/import-leads.ts';
import type { ILead } from '../db/entities/lead.ts';
import type { IList } from '../db/entities/list.ts';
import { addNewLeads, deleteLead, findLeadsByIds, getLead, lockListForAdding, updateLead } from '../db/repos/leads.ts';
import { createList, deleteList, getList, leadCounts, requireList, updateList } from '../db/repos/lists.ts';
import { type LeadFilter, leadRowsByPage, pageLeadRows, pageListRows } from './repository-pages.ts';
import type { LeadSource } from '../domain/lead.ts';
import type { LeadInput } from '../domain/lead-input.ts';
import type { OnDuplicate } from '../domain/lead-duplicates.ts';

export type ListRecord = IList;
export type LeadRecord = ILead;

export interface CountedList {
  list: ListRecord;
  leadCount: number;
}

type ListInput = { name: string; description?: string | null };

async function withLeadCount(em: EntityManager, list: ListRecord): Promise<CountedList> {
  const counts = await leadCounts(em, [list.id]);
  return { list, leadCount: counts.get(list.id) ?? 0 };
}

export async function createListOf(em: EntityManager, organizationId: string, input: ListInput): Promise<CountedList> {
  return { list: await createList(em, organizationId, input), leadCount: 0 };
}

/** Read on the integration-access pool, straight into the page's JSON shape. */
export function pageLists(pool: Pool, organizationId: string, offset: number, limit: number) {
  return pageListRows(pool, organizationId, offset, limit);
}

export async function getListOf(em: EntityManager, organizationId: string, listId: string) {
  return withLeadCount(em, await getList(em, organizationId, listId));
}

export async function updateListOf(em: EntityManager, organizationId: string, listId: string, input: Partial<ListInput>) {
  return withLeadCount(em, await updateList(em, await getList(em, organizationId, listId), input));
}

export async function deleteListOf(em: EntityManager, organizationId: string, listId: string) {
  await deleteList(em, await getList(em, organizationId, listId));
}

/**
 * A page of the organization's leads, read on the integration-access pool straight into the caller's JSON shape `Row`.
 * A list of another organization is as absent as a missing one (404), never an empty page.
 */
export async function pageLeads<Row>(pool: Pool, organizationId: string, filter: LeadFilter, offset: number, limit: number) {
  if (filter.listId !== undefined) await requireList(pool, organizationId, filter.listId);
  return pageLeadRows<Row>(pool, organizationId, filter, offset, limit);
}

/** Leads read per query when a list is exported. */
const EXPORT_PAGE_SIZE = 1000;

/**
 * A list's leads the filter keeps, page by page, each read only when the previous one was consumed (the CSV export);
 * answers the list's name too. A list of another organization is a 404, as for a page.
 */
export async function leadExport<Row extends { id: string }>(pool: Pool, organizationId: string, filter: LeadFilter & { listId: string }) {
  const listName = await requireList(pool, organizationId, filter.listId);
  return { listName, pages: leadRowsByPage<Row>(pool, organizationId, filter, EXPORT_PAGE_SIZE) };
}

/** Adds the leads new to the list; `duplicates.rows` are the 1-based positions in `inputs` of those it held already. */
export async function addLeadsToList(
  em: EntityManager,
  organizationId: string,
  listId: string,
  inputs: LeadInput[],
  options: { source: LeadSource; onDuplicate: OnDuplicate },
) {
  const list = await getList(em, organizationId, listId);
  const { ids, duplicates } = await em.transactional(async (tx) => {
    await lockListForAdding(tx, list.id);
    return addNewLeads(tx, { organizationId, listId: list.id, ...options }, inputs);
  });
  const rows = duplicates.map((index) => index + 1);
  return { created: ids.length, leads: await findLeadsByIds(em, ids), duplicates: { count: rows.length, rows } };
}

/**
 * Finds the list before any of the upload is read, so a missing list is a 404 rather than a parsed file; returns
 * the import of one CSV stream into it.
 */
export async function leadImportInto(em: EntityManager, organizationId: string, listId: string, maxRows: number) {
  const list = await getList(em, organizationId, listId);
  return (file: Readable, onDuplicate: OnDuplicate) => importLeadCsv(em, { organizationId, listId: list.id, source: 'import', onDuplicate }, file, maxRows);
}

export function getLeadOf(em: EntityManager, organizationId: string, leadId: string) {
  return getLead(em, organizationId, leadId);
}

export async function updateLeadOf(em: EntityManager, organizationId: string, leadId: string, input: Partial<LeadInput>) {
  return updateLead(em, await getLead(em, organizationId, leadId), input);
}

export async function deleteLeadOf(em: EntityManager, organizationId: string, leadId: string) {
  await deleteLead(em, await getLead(em, organizationId, leadId));
}
