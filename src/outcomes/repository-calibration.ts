/** How the Catch-All scores held up against what the organization's sends showed (CONTRACT §12 calibration). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { CATCH_ALL_SCORES } from '../domain/catch-all.ts';
import { runSql } from '../db/run-sql.ts';

export interface CalibrationBand {
  score: number;
  results: number;
  withOutcome: number;
  bounced: number;
  bounceRate: number | null;
}

/**
 * Per score, over the organization's latest scored Catch-All result per address: how many, how many have a
 * delivered or hard-bounce outcome reported at or after that result, and the hard bounces among those.
 * Raw SQL: `distinct on` and filtered aggregates say it in one statement. The organization's jobs come
 * from the (organization_id, id) index and their Catch-All results from the partial Catch-All index, so
 * other organizations' results are never read.
 */
export const CALIBRATION_SQL = `
  with latest as (
    select distinct on (r.email) r.email, r.catch_all_score as score, r.checked_at
    from verification_job j
    join verification_result r on r.job_id = j.id and r.result = 'Catch-All' and r.catch_all_score is not null
    where j.organization_id = ?
    order by r.email, r.checked_at desc nulls last, r.id desc
  )
  select l.score,
         count(*)::int as results,
         count(*) filter (where o.at >= l.checked_at and (o.outcome = 'delivered' or o.bounce_type = 'hard'))::int as with_outcome,
         count(*) filter (where o.at >= l.checked_at and o.outcome = 'bounced' and o.bounce_type = 'hard')::int as bounced
  from latest l
  left join send_outcome o on o.organization_id = ? and o.email = l.email
  group by l.score`;

export async function calibrationBands(em: EntityManager, organizationId: string): Promise<CalibrationBand[]> {
  const rows = await runSql(em, CALIBRATION_SQL, [organizationId, organizationId]);
  const byScore = new Map(rows.map((r) => [Number(r.score), r]));
  return CATCH_ALL_SCORES.map((score) => {
    const row = byScore.get(score);
    const withOutcome = Number(row?.with_outcome ?? 0);
    const bounced = Number(row?.bounced ?? 0);
    return { score, results: Number(row?.results ?? 0), withOutcome, bounced, bounceRate: withOutcome === 0 ? null : bounced / withOutcome };
  });
}
