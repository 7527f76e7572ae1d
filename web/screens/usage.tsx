// Account → Usage (CONTRACT §15 `GET /api/usage`): per month, credits by datum, provider dollars and jobs by kind;
// a month opens to its charges from the credit ledger, one row per job or request.
import { useState } from 'preact/hooks';
import { get, type Page, query } from '../api.ts';
import { counted, credits, money, monthName, num, when } from '../format.ts';
import { type Column, DataTable } from '../table.tsx';
import type { LedgerEntry, UsageMonth } from '../types.ts';
import { LoadFailed, Loading, useLoad } from '../ui.tsx';
import { REF_LABEL, SpendToDate } from './account.tsx';

interface Charge {
  key: string;
  label: string;
  refId: string | null;
  entries: number;
  credits: number;
  last: string;
}

const LEDGER_PAGES = 20;

/** The month's ledger debits, one row per job or request: the ledger pages, newest first, until the month is behind. */
async function chargesOf(month: string): Promise<{ charges: Charge[]; complete: boolean }> {
  const start = new Date(`${month}-01T00:00:00Z`);
  const end = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  const byRef = new Map<string, Charge>();
  for (let page = 1; page <= LEDGER_PAGES; page++) {
    const chunk = await get<Page<LedgerEntry>>(`/api/credits/ledger${query({ page, limit: 100 })}`);
    for (const entry of chunk.data) {
      const at = new Date(entry.createdAt);
      if (at < start) return { charges: [...byRef.values()], complete: true };
      if (at >= end || entry.delta >= 0) continue;
      const key = `${entry.refType ?? 'other'}:${entry.refId ?? entry.id}`;
      const charge = byRef.get(key) ?? {
        key,
        label: entry.refType ? (REF_LABEL[entry.refType] ?? entry.refType) : entry.reason,
        refId: entry.refType === 'enrichment_job' ? entry.refId : null,
        entries: 0,
        credits: 0,
        last: entry.createdAt,
      };
      charge.entries += 1;
      charge.credits -= entry.delta;
      byRef.set(key, charge);
    }
    if (page >= chunk.totalPages) return { charges: [...byRef.values()], complete: true };
  }
  return { charges: [...byRef.values()], complete: false };
}

const CHARGE_COLUMNS: Array<Column<Charge>> = [
  {
    header: 'For',
    cell: (c) => (c.refId ? <a href={`#/enrichment/${c.refId}`}>{c.label}</a> : c.label),
  },
  { header: 'Charges', cell: (c) => num(c.entries), numeric: true },
  { header: 'Credits', cell: (c) => num(c.credits), numeric: true },
  { header: 'Last charge', cell: (c) => when(c.last) },
];

function MonthCharges({ month }: { month: string }) {
  const charges = useLoad(() => chargesOf(month), [month]);
  if (!charges.data)
    return charges.error ? (
      <LoadFailed error={charges.error} what="the charges" onRetry={charges.reload} />
    ) : (
      <Loading what="the charges" />
    );
  return (
    <>
      <DataTable
        columns={CHARGE_COLUMNS}
        rows={charges.data.charges}
        rowKey={(c) => c.key}
        testId="charges"
        empty="No credit was charged this month."
      />
      {!charges.data.complete && <p class="hint">Only the latest {num(LEDGER_PAGES * 100)} ledger entries were read.</p>}
    </>
  );
}

export function UsageScreen() {
  const usage = useLoad(() => get<{ months: UsageMonth[] }>('/api/usage'), []);
  const [open, setOpen] = useState<string | null>(null);
  const columns: Array<Column<UsageMonth>> = [
    { header: 'Month', cell: (m) => monthName(m.month), rowHeader: true },
    {
      header: 'Credits',
      cell: (m) => (
        <>
          {credits(m.credits.total)}
          {m.credits.total > 0 && (
            <div class="hint">
              work email {num(m.credits.workEmail)} · personal email {num(m.credits.personalEmail)} · phone{' '}
              {num(m.credits.phone)}
            </div>
          )}
        </>
      ),
      numeric: true,
    },
    { header: 'Provider verification', cell: (m) => money(m.verificationDollars), numeric: true },
    {
      header: 'Jobs',
      cell: (m) =>
        (
          [
            [m.jobs.verification, 'verification'],
            [m.jobs.scrape, 'scrape'],
            [m.jobs.enrichment, 'enrichment'],
          ] as const
        )
          .filter(([n]) => n > 0)
          .map(([n, kind]) => counted(n, kind))
          .join(' · ') || 'none',
    },
    {
      header: null,
      cell: (m) =>
        m.credits.total > 0 && (
          <button type="button" aria-expanded={open === m.month} onClick={() => setOpen(open === m.month ? null : m.month)}>
            {open === m.month ? 'Hide charges' : 'Charges'}
          </button>
        ),
    },
  ];
  return (
    <section>
      <p>
        <a href="#/account">← Account</a>
      </p>
      <h1>Usage</h1>
      <dl class="facts">
        <SpendToDate />
      </dl>
      {!usage.data ? (
        usage.error ? (
          <LoadFailed error={usage.error} what="the usage" onRetry={usage.reload} />
        ) : (
          <Loading what="the usage" />
        )
      ) : (
        <DataTable
          columns={columns}
          rows={[...usage.data.months].sort((a, b) => b.month.localeCompare(a.month))}
          rowKey={(m) => m.month}
          detail={(m) => open === m.month && <MonthCharges month={m.month} />}
          testId="usage"
          empty="Nothing used yet."
        />
      )}
    </section>
  );
}
