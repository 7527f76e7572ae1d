import type { EntityManager } from '@mikro-orm/postgresql';
import type { LeadSource } from '../../domain/lead.ts';
import { notFound } from '../../errors.ts';
import type { LeadInput } from '../../domain/lead-input.ts';
import { newId } from '../entities/common.ts';
import { Lead } from '../entities/index.ts';
import type { ILead } from '../entities/lead.ts';

const INSERT_CHUNK = 1000;

/** Native batch insert (no unit of work): imports of tens of thousands of rows stay fast and flat. */
export async function insertLeads(
  em: EntityManager,
  organizationId: string,
  listId: string,
  inputs: LeadInput[],
  source: LeadSource,
): Promise<string[]> {
  const now = new Date();
  const rows = inputs.map((input) => ({
    id: newId(),
    organization: organizationId,
    list: listId,
    ...input,
    emailStatus: null,
    emailVerifiedAt: null,
    source,
    enrichedAt: null,
    createdAt: now,
    updatedAt: now,
  }));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    await em.insertMany(Lead, rows.slice(i, i + INSERT_CHUNK));
  }
  return rows.map((r) => r.id);
}

export function findLeadsByIds(em: EntityManager, ids: string[]) {
  return em.find(Lead, { id: { $in: ids } }, { orderBy: { id: 'asc' } });
}

export async function getLead(em: EntityManager, organizationId: string, leadId: string): Promise<ILead> {
  const lead = await em.findOne(Lead, { id: leadId, organization: organizationId });
  if (!lead) throw notFound('Lead');
  return lead;
}

export async function updateLead(em: EntityManager, lead: ILead, input: Partial<LeadInput>) {
  for (const [key, value] of Object.entries(input) as Array<[keyof LeadInput, string | null | undefined]>) {
    if (value !== undefined) lead[key] = value;
  }
  await em.flush();
  return lead;
}

export async function deleteLead(em: EntityManager, lead: ILead) {
  await em.nativeDelete(Lead, { id: lead.id });
}
