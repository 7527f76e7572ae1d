/** What an organization spent, month by month (CONTRACT §15): credits by datum, provider dollars, jobs by kind. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { microsToDollars } from '../domain/verification.ts';
import { runSql } from '../db/run-sql.ts';

export interface MonthUsage {
  month: string;
  credits: { workEmail: number; personalEmail: number; phone: number; total: number };
  verificationDollars: number;
  jobs: { verification: number; scrape: number; enrichment: number };
}

/**
 * One row per month of [from, to] (first days, UTC), months without activity included. Charges are the ledger's
 * debits, told apart by their idempotency key's last part (`…:workEmail`, one charge per datum, enrichment/engine-settle.ts);
 * `total` is every debit. Dollars are the provider spend rows (one per address bought), summed in micro-dollars.
 * Raw SQL: a report over a generated series of months, each month's rows grouped once and joined, reads plainer so
 * than in the builder. Parameters: the organization, the first month's start, the end.
 */
export const USAGE_BY_MONTH_SQL = `
with bounds as (
  select ?::uuid as org, ?::timestamptz as lo, ?::timestamptz as hi
), months as (
  select generate_series(lo at time zone 'UTC', hi at time zone 'UTC' - interval '1 month', interval '1 month') as month from bounds
), charges as (
  select date_trunc('month', created_at at time zone 'UTC') as month,
         sum(-delta) filter (where substring(idempotency_key from ':([A-Za-z]+)$') = 'workEmail') as work_email,
         sum(-delta) filter (where substring(idempotency_key from ':([A-Za-z]+)$') = 'personalEmail') as personal_email,
         sum(-delta) filter (where substring(idempotency_key from ':([A-Za-z]+)$') = 'phone') as phone,
         sum(-delta) as total
    from credit_ledger, bounds
   where organization_id = org and delta < 0 and created_at >= lo and created_at < hi
   group by 1
), spend as (
  select date_trunc('month', created_at at time zone 'UTC') as month, sum(amount_micros)::bigint as micros
    from verification_spend, bounds
   where organization_id = org and created_at >= lo and created_at < hi
   group by 1
), jobs as (
  select date_trunc('month', created_at at time zone 'UTC') as month,
         count(*) filter (where kind = 'verification') as verification,
         count(*) filter (where kind = 'scrape') as scrape,
         count(*) filter (where kind = 'enrichment') as enrichment
    from (
      select 'verification' as kind, created_at from verification_job, bounds where organization_id = org and created_at >= lo and created_at < hi
      union all
      select 'scrape', created_at from scrape_job, bounds where organization_id = org and created_at >= lo and created_at < hi
      union all
      select 'enrichment', created_at from enrichment_job, bounds where organization_id = org and created_at >= lo and created_at < hi
    ) created
   group by 1
)
select to_char(m.month, 'YYYY-MM') as month,
       coalesce(c.work_email, 0)::int as "workEmail",
       coalesce(c.personal_email, 0)::int as "personalEmail",
       coalesce(c.phone, 0)::int as phone,
       coalesce(c.total, 0)::int as total,
       coalesce(s.micros, 0)::bigint as micros,
       coalesce(j.verification, 0)::int as verification,
       coalesce(j.scrape, 0)::int as scrape,
       coalesce(j.enrichment, 0)::int as enrichment
  from months m
  left join charges c using (month)
  left join spend s using (month)
  left join jobs j using (month)
 order by m.month`;

type Row = { month: string; workEmail: number; personalEmail: number; phone: number; total: number; micros: string | number } & MonthUsage['jobs'];

/** `from` and `to` are months as `YYYY-MM`, `from` ≤ `to`. */
export async function usageByMonth(em: EntityManager, organizationId: string, from: string, to: string): Promise<MonthUsage[]> {
  const start = `${from}-01`;
  const [year, month] = to.split('-').map(Number) as [number, number];
  const end = new Date(Date.UTC(year, month, 1)).toISOString();
  const rows = await runSql<Row>(em, USAGE_BY_MONTH_SQL, [organizationId, `${start}T00:00:00Z`, end]);
  return rows.map((r) => ({
    month: r.month,
    credits: { workEmail: r.workEmail, personalEmail: r.personalEmail, phone: r.phone, total: r.total },
    verificationDollars: microsToDollars(Number(r.micros)),
    jobs: { verification: r.verification, scrape: r.scrape, enrichment: r.enrichment },
  }));
}
