import type { Agent, AgentResponse } from '../agent.ts';
import { eventually } from '../eventually.ts';
import type { Harness } from '../harness.ts';

/** The one way to wait for a bulk enrichment job: its status once it completed or failed. */
export async function settledJob(agent: Agent, jobId: string, timeoutMs = 90_000): Promise<AgentResponse['body']> {
  const res = await eventually(
    () => agent.get(`/api/enrichment/bulk/${jobId}`),
    (r) => r.status !== 200 || r.body.status === 'completed' || r.body.status === 'failed',
    { what: `bulk enrichment job ${jobId} settled`, timeoutMs, intervalMs: 150 },
  );
  if (res.status !== 200) throw new Error(`job status: ${res.status} ${res.text}`);
  return res.body;
}

/** A list with the given leads; returns the list id and the lead ids in creation (id) order. */
export async function listWithLeads(agent: Agent, leads: Array<Record<string, string | null>>): Promise<{ listId: string; leadIds: string[] }> {
  const list = await agent.post('/api/lists', { name: `enrich ${Date.now()}` });
  if (list.status !== 201) throw new Error(`create list: ${list.status} ${list.text}`);
  const leadIds: string[] = [];
  for (let i = 0; i < leads.length; i += 1000) {
    const res = await agent.post(`/api/lists/${list.body.id}/leads`, { leads: leads.slice(i, i + 1000) });
    if (res.status !== 201) throw new Error(`add leads: ${res.status} ${res.text}`);
    leadIds.push(...(res.body.leads as Array<{ id: string }>).map((l) => l.id));
  }
  return { listId: list.body.id as string, leadIds };
}

export interface LedgerRow {
  delta: number;
  idempotency_key: string;
  ref_type: string | null;
  ref_id: string | null;
}

/** The organization's ledger and balance straight from the database. */
export async function ledgerOf(h: Harness, organizationId: string): Promise<{ rows: LedgerRow[]; sum: number; balance: number }> {
  const rows = (await h.sql(`select delta, idempotency_key, ref_type, ref_id from credit_ledger where organization_id = ? order by id`, [
    organizationId,
  ])) as LedgerRow[];
  const [org] = await h.sql(`select credit_balance from organization where id = ?`, [organizationId]);
  return { rows, sum: rows.reduce((s, r) => s + Number(r.delta), 0), balance: Number(org.credit_balance) };
}

/** Charges only (negative rows), as `key → delta`. */
export function chargesOf(rows: readonly LedgerRow[]): Map<string, number> {
  return new Map(rows.filter((r) => Number(r.delta) < 0).map((r) => [r.idempotency_key, Number(r.delta)]));
}
