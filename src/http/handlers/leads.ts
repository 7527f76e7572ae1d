/** Bodies of the single-lead routes, shared by `/api/leads` (session) and `/api/external/leads` (API key). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { deleteLead, getLead, updateLead } from '../../db/repos/leads.ts';
import { type LeadInput } from '../../domain/lead-input.ts';
import { toLeadDto } from '../schemas/lead.ts';

export async function getLeadDto(em: EntityManager, organizationId: string, leadId: string) {
  return toLeadDto(await getLead(em, organizationId, leadId));
}

export async function updateLeadDto(em: EntityManager, organizationId: string, leadId: string, input: Partial<LeadInput>) {
  return toLeadDto(await updateLead(em, await getLead(em, organizationId, leadId), input));
}

export async function deleteLeadOf(em: EntityManager, organizationId: string, leadId: string) {
  await deleteLead(em, await getLead(em, organizationId, leadId));
}
