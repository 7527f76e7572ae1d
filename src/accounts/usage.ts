/** What an organization spent, month by month (CONTRACT §15): credits by datum, provider dollars, jobs by kind. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { microsToDollars } from '../domain/verification.ts';

export interface MonthUsage {
  month: string;
  credits: { workEmail: number; personalEmail: number; phone: number; total: number };
  verificationDollars: number;
  jobs: { verification: number; scrape: number; enrichment: number };
}

/**
 * One row per month of [from, to] (first days, UTC), months without activity included. Charges are the ledger's
 * debits, told apart by their idempotency key's last part (`…:workEmail`, one charge per datum, enrichment/settle.ts);
 * `total` is every debit. Dollars are the provider spend rows (one per address bought), summed in micro-dollars.
 */
const USAGE_BY_MONTH = `
with months as (
  select generate_series(?::date, ?::date, interval '1 month') as month
), charges as (
  select date_trunc('month', created_at at time zone 'UTC') as month, -delta as credits,
         substring(idempotency_key from ':([A-Za-z]+)$') as datum
    from credit_ledger
   where organization_id = ? and delta < 0 and created_at >= ?::timestamptz and created_at < ?::timestamptz
), spend as (
  select date_trunc('month', created_at at time zone 'UTC') as month, sum(amount_micros)::bigint as micros
    from verification_spend
   where organization_id = ? and created_at >= ?::timestamptz and created_at < ?::timestamptz
   group by 1
), jobs as (
  select kind, date_trunc('month', created_at at time zone 'UTC') as month, count(*)::int as n
    from (
      select 'verification' as kind, created_at from verification_job where organization_id = ? and created_at >= ?::timestamptz and created_at < ?::timestamptz
      union all
      select 'scrape', created_at from scrape_job where organization_id = ? and created_at >= ?::timestamptz and created_at < ?::timestamptz
      union all
      select 'enrichment', created_at from enrichment_job where organization_id = ? and created_at >= ?::timestamptz and created_at < ?::timestamptz
    ) created
   group by 1, 2
)
select to_char(m.month, 'YYYY-MM') as month,
       coalesce((select sum(credits) filter (where datum = 'workEmail') from charges c where c.month = m.month), 0)::int as "workEmail",
       coalesce((select sum(credits) filter (where datum = 'personalEmail') from charges c where c.month = m.month), 0)::int as "personalEmail",
       coalesce((select sum(credits) filter (where datum = 'phone') from charges c where c.month = m.month), 0)::int as phone,
       coalesce((select sum(credits) from charges c where c.month = m.month), 0)::int as total,
       coalesce((select micros from spend s where s.month = m.month), 0)::bigint as micros,
       coalesce((select n from jobs j where j.month = m.month and j.kind = 'verification'), 0) as verification,
       coalesce((select n from jobs j where j.month = m.month and j.kind = 'scrape'), 0) as scrape,
       coalesce((select n from jobs j where j.month = m.month and j.kind = 'enrichment'), 0) as enrichment
  from months m
 order by m.month`;

type Row = { month: string; workEmail: number; personalEmail: number; phone: number; total: number; micros: string | number } & MonthUsage['jobs'];

/** `from` and `to` are months as `YYYY-MM`, `from` ≤ `to`. */
export async function usageByMonth(em: EntityManager, organizationId: string, from: string, to: string): Promise<MonthUsage[]> {
  const start = `${from}-01`;
  const [year, month] = to.split('-').map(Number) as [number, number];
  const end = new Date(Date.UTC(year, month, 1)).toISOString();
  const range = [organizationId, `${start}T00:00:00Z`, end];
  const rows = await em.execute<Row[]>(USAGE_BY_MONTH, [start, `${to}-01`, ...range, ...range, ...range, ...range, ...range]);
  return rows.map((r) => ({
    month: r.month,
    credits: { workEmail: r.workEmail, personalEmail: r.personalEmail, phone: r.phone, total: r.total },
    verificationDollars: microsToDollars(Number(r.micros)),
    jobs: { verification: r.verification, scrape: r.scrape, enrichment: r.enrichment },
  }));
}
