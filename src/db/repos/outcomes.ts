/** Send outcomes (CONTRACT §12): one row per (organization, address), the latest report by `at` winning. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../entities/common.ts';
import type { OutcomeRecord } from '../../domain/outcome-input.ts';
import { runSql } from '../run-sql.ts';

/**
 * Set-based upsert of one batch (each address at most once): a report older than the stored one leaves
 * it as it is, so reports arriving out of order end as if they had come in order. Raw SQL: the conditional
 * `on conflict … where` over a JSON recordset reads better so than in the builder.
 */
export const UPSERT_OUTCOMES_SQL = `
  insert into send_outcome (id, organization_id, email, outcome, bounce_type, at, created_at)
  select v.id, ?, v.email, v.outcome, v.bounce_type, v.at, now()
  from jsonb_to_recordset(?::jsonb) as v(id uuid, email text, outcome text, bounce_type text, at timestamptz)
  on conflict (organization_id, email) do update
    set outcome = excluded.outcome, bounce_type = excluded.bounce_type, at = excluded.at, created_at = excluded.created_at
    where send_outcome.at <= excluded.at`;

export async function upsertOutcomes(em: EntityManager, organizationId: string, records: OutcomeRecord[]): Promise<void> {
  if (records.length === 0) return;
  const payload = records.map((r) => ({ id: newId(), email: r.email, outcome: r.outcome, bounce_type: r.bounceType, at: r.at.toISOString() }));
  await runSql(em, UPSERT_OUTCOMES_SQL, [organizationId, JSON.stringify(payload)]);
}
