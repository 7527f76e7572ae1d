import { useState } from 'preact/hooks';
import { api, get, type Page, post, query } from '../api.ts';
import { Breakdown } from '../breakdown.tsx';
import { credits, num, phone, STAGE_LABEL, when } from '../format.ts';
import { ResultSelect } from '../pickers.tsx';
import { useSession } from '../session.ts';
import { type Column, PagedTable, usePaged } from '../table.tsx';
import type { BulkJob, Lead, LeadList, VerificationJob } from '../types.ts';
import {
  ConfirmButton,
  ErrorNote,
  FieldError,
  fullName,
  invalidField,
  LoadFailed,
  Loading,
  PaidAction,
  Status,
  useAction,
  useJobEvents,
  useLoad,
} from '../ui.tsx';
import { Import } from './import.tsx';
import { CREDIT_PRICES, estimateCredits } from '../../src/domain/enrichment.ts';

const LIST_COLUMNS: Array<Column<LeadList>> = [
  {
    header: 'Name',
    cell: (list) => (
      <>
        <a href={`#/lists/${list.id}`}>{list.name}</a>
        {list.description && <div class="hint">{list.description}</div>}
      </>
    ),
  },
  { header: 'Leads', cell: (list) => num(list.leadCount), numeric: true },
  { header: 'Created', cell: (list) => when(list.createdAt) },
];

export function ListsScreen() {
  const lists = usePaged<LeadList>('/api/lists');
  const create = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    void create.run(async () => {
      if (!String(data.get('name') ?? '').trim()) throw invalidField('name', 'is required');
      const list = await post<LeadList>('/api/lists', {
        name: String(data.get('name')),
        description: String(data.get('description') ?? '') || undefined,
      });
      form.reset();
      location.hash = `#/lists/${list.id}`;
    });
  };
  return (
    <section>
      <h1>Lists</h1>
      <form class="inline card" onSubmit={submit} aria-label="New list" noValidate>
        <label>
          New list name
          <input name="name" required maxLength={200} />
          <FieldError error={create.error} field="name" />
        </label>
        <label>
          Description (optional)
          <input name="description" maxLength={1000} />
          <FieldError error={create.error} field="description" />
        </label>
        <button type="submit" class="primary" disabled={create.busy}>
          Create list
        </button>
        <ErrorNote error={create.error} fields={['name', 'description']} />
      </form>
      <PagedTable
        paged={lists}
        what="your lists"
        columns={LIST_COLUMNS}
        rowKey={(list) => list.id}
        empty={
          <>
            No lists yet. Create one above, then import a CSV of leads into it, or{' '}
            <a href="#/scrape">find profiles with a scrape job</a> and sync them into a list.
          </>
        }
      />
    </section>
  );
}

export function ListScreen({ listId }: { listId: string }) {
  const list = useLoad(() => get<LeadList>(`/api/lists/${listId}`), [listId]);
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const leads = usePaged<Lead>(`/api/lists/${listId}/leads`, { limit: 25, emailStatus: status, search });
  const action = useAction();
  const [renaming, setRenaming] = useState(false);

  if (!list.data)
    return list.error ? (
      <LoadFailed error={list.error} what="the list" onRetry={list.reload} />
    ) : (
      <Loading what="the list" />
    );
  const current = list.data;
  const changed = () => {
    list.reload();
    leads.reload();
  };

  const rename = (event: Event) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name')).trim();
    void action.run(async () => {
      if (!name) throw invalidField('name', 'is required');
      list.setData(await api<LeadList>('PATCH', `/api/lists/${listId}`, { name }));
      setRenaming(false);
    });
  };
  const remove = () =>
    void action.run(async () => {
      await api('DELETE', `/api/lists/${listId}`);
      location.hash = '#/lists';
    });

  return (
    <section>
      <p>
        <a href="#/lists">← All lists</a>
      </p>
      {renaming ? (
        <form class="inline" onSubmit={rename} noValidate>
          <label>
            List name
            <input name="name" required defaultValue={current.name} maxLength={200} />
            <FieldError error={action.error} field="name" />
          </label>
          <button type="submit" class="primary" disabled={action.busy}>
            Save name
          </button>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <h1>
          {current.name} <span class="count">{num(current.leadCount)} leads</span>
        </h1>
      )}
      <div class="actions">
        {!renaming && (
          <button type="button" onClick={() => setRenaming(true)}>
            Rename
          </button>
        )}
        <a class="button" href={`#/verification?list=${listId}`}>
          Verify emails
        </a>
        <a class="button" href={`#/enrichment?list=${listId}`}>
          Enrich leads
        </a>
        {/* The service streams the file (any size), with the filters on screen, named after the list. */}
        <a
          class="button"
          href={`/api/lists/${listId}/leads/export${query({ emailStatus: status, search })}`}
          download={`${current.name}.csv`}
          aria-disabled={current.leadCount === 0}
          data-testid="export"
        >
          {status || search ? 'Export these leads (CSV)' : 'Export CSV'}
        </a>
        <ConfirmButton
          label="Delete list"
          confirm={`Delete "${current.name}" and its ${num(current.leadCount)} leads`}
          onConfirm={remove}
        />
      </div>
      <ErrorNote error={action.error} fields={['name']} />
      <LatestVerification listId={listId} onFinished={changed} />
      <FindMissingEmails list={current} onFinished={changed} />
      <Import listId={listId} onImported={changed} />
      <h2>Leads</h2>
      <form class="inline filters" onSubmit={(event) => event.preventDefault()}>
        <label>
          Search
          <input
            type="search"
            placeholder="name, email, company…"
            onChange={(event) => {
              leads.setPage(1);
              setSearch((event.currentTarget as HTMLInputElement).value.trim());
            }}
          />
        </label>
        <label>
          Verification
          <ResultSelect
            value={status}
            onPick={(result) => {
              leads.setPage(1);
              setStatus(result);
            }}
          />
        </label>
      </form>
      <PagedTable
        paged={leads}
        what="leads"
        columns={LEAD_COLUMNS}
        rowKey={(lead) => lead.id}
        class="leads"
        empty={
          status || search
            ? 'No lead matches this search.'
            : 'This list has no leads yet: import a CSV above.'
        }
      />
    </section>
  );
}

const ACTIVE = (job: VerificationJob) => job.verificationStage !== 'completed' && job.verificationStage !== 'failed';

/** The list's latest verification: its final breakdown, live while it runs (the leads reload when it ends). */
function LatestVerification({ listId, onFinished }: { listId: string; onFinished: () => void }) {
  const latest = useLoad(
    () => get<Page<VerificationJob>>(`/api/verification/jobs${query({ listId, limit: 1 })}`),
    [listId],
  );
  const job = latest.data?.data[0];
  useJobEvents<VerificationJob>(
    job && ACTIVE(job) ? `/api/verification/jobs/${job.id}/events` : null,
    (next) => {
      latest.setData({ ...latest.data!, data: [next] });
      if (!ACTIVE(next)) onFinished();
    },
    (next) => !ACTIVE(next),
  );
  if (!latest.data)
    return latest.error ? <LoadFailed error={latest.error} what="the latest verification" onRetry={latest.reload} /> : null;
  if (!job) return <p class="hint">Not verified yet: press “Verify emails” to check the addresses.</p>;
  return (
    <div class="card" data-testid="latest-verification">
      <h2>
        Latest verification: <a href={`#/verification/${job.id}`}>{STAGE_LABEL[job.verificationStage]}</a>
        <span class="hint">{when(job.createdAt)}</span>
      </h2>
      <Breakdown job={job} />
    </div>
  );
}

/**
 * "Find missing emails": a bulk enrichment for the work email only (the email finder first, then the paid
 * providers for what it did not find). At most the work-email price per lead; a lead costs it only when an address
 * is found Valid. A found address becomes the lead's email when it had none (CONTRACT §15).
 */
function FindMissingEmails({ list, onFinished }: { list: LeadList; onFinished: () => void }) {
  const { me, refresh } = useSession();
  const action = useAction();
  const [job, setJob] = useState<BulkJob | null>(null);
  useJobEvents<BulkJob>(
    job && job.status !== 'completed' && job.status !== 'failed' ? `/api/enrichment/bulk/${job.jobId}/events` : null,
    (next) => {
      setJob(next);
      void refresh();
      if (next.status === 'completed') onFinished();
    },
    (next) => next.status === 'completed' || next.status === 'failed',
  );
  if (list.leadCount === 0) return null;
  const most = estimateCredits(list.leadCount, ['workEmail']);
  const start = () =>
    void action.run(async () => {
      const created = await post<{ jobId: string }>('/api/enrichment/bulk', { listId: list.id, fields: ['workEmail'] });
      setJob(await get<BulkJob>(`/api/enrichment/bulk/${created.jobId}`));
    });
  return (
    <div class="card" data-testid="find-missing">
      <h2>Find missing emails</h2>
      <p>
        Looks for each lead’s work email from its name and company domain (or profile URL). At most{' '}
        <strong>{credits(most)}</strong> ({credits(CREDIT_PRICES.workEmail)} per lead, {num(list.leadCount)} leads),
        charged only for an address found <strong>Valid</strong>; you have {credits(me.organization.creditBalance)}.
      </p>
      {job ? (
        <p role="status" data-testid="find-missing-status">
          {job.status === 'completed'
            ? `Done: ${num(job.successCount)} emails found for ${credits(job.creditsUsed)}.`
            : job.status === 'failed'
              ? `The search failed: ${job.failureReason ?? 'no reason was recorded'}.`
              : `Searching… ${num(job.processedLeads)} of ${num(job.totalLeads)} leads.`}{' '}
          <a href={`#/enrichment/${job.jobId}`}>Open the job</a>
        </p>
      ) : (
        <PaidAction
          label="Find missing emails"
          total={`At most ${credits(most)}`}
          what={`look for the work email of ${num(list.leadCount)} leads`}
          onConfirm={start}
          disabled={action.busy}
        />
      )}
      <ErrorNote error={action.error} />
    </div>
  );
}

const LEAD_COLUMNS: Array<Column<Lead>> = [
  {
    header: 'Name',
    cell: (lead) => (
      <>
        {fullName(lead)}
        {lead.title && <div class="hint">{lead.title}</div>}
      </>
    ),
  },
  {
    header: 'Company',
    cell: (lead) => (
      <>
        {lead.company ?? '—'}
        {lead.companyDomain && <div class="hint">{lead.companyDomain}</div>}
      </>
    ),
  },
  { header: 'Email', cell: (lead) => lead.email ?? '—' },
  { header: 'Verification', cell: (lead) => <Status value={lead.emailStatus} /> },
  { header: 'Enriched', cell: (lead) => <Enriched lead={lead} /> },
];

function Enriched({ lead }: { lead: Lead }) {
  if (!lead.enrichedAt) return <span class="hint">{lead.networkUrl ? 'not yet' : 'no profile URL'}</span>;
  return (
    <dl class="enriched">
      {lead.workEmail && (
        <>
          <dt>Work</dt>
          <dd>{lead.workEmail}</dd>
        </>
      )}
      {lead.personalEmail && (
        <>
          <dt>Personal</dt>
          <dd>{lead.personalEmail}</dd>
        </>
      )}
      {lead.phone && (
        <>
          <dt>Phone</dt>
          <dd>{phone(lead.phone)}</dd>
        </>
      )}
      {!lead.workEmail && !lead.personalEmail && !lead.phone && <dd>nothing verified found</dd>}
    </dl>
  );
}
