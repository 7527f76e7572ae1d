import { useState } from 'preact/hooks';
import { api, get, type Page, post, query } from '../api.ts';
import { type CsvPreview, previewCsv, saveFile, toCsv } from '../csv.ts';
import { mapHeader } from '../../src/domain/csv-header.ts';
import { LEAD_CSV_ALIASES } from '../../src/domain/lead-csv.ts';
import { ResultSelect } from '../pickers.tsx';
import { type Column, DataTable, PagedTable, usePaged } from '../table.tsx';
import type { Lead, LeadList } from '../types.ts';
import {
  ConfirmButton,
  counted,
  ErrorNote,
  fullName,
  Loading,
  Notice,
  Status,
  useAction,
  useLoad,
  when,
} from '../ui.tsx';

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
  { header: 'Leads', cell: (list) => list.leadCount, numeric: true },
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
      <form class="inline card" onSubmit={submit} aria-label="New list">
        <label>
          New list name
          <input name="name" required maxLength={200} />
        </label>
        <label>
          Description (optional)
          <input name="description" maxLength={1000} />
        </label>
        <button type="submit" class="primary" disabled={create.busy}>
          Create list
        </button>
        <ErrorNote error={create.error} />
      </form>
      <ErrorNote error={lists.error} />
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

  if (list.error) return <ErrorNote error={list.error} />;
  if (!list.data) return <Loading what="the list" />;
  const current = list.data;

  const rename = (event: Event) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget as HTMLFormElement).get('name'));
    void action.run(async () => {
      list.setData(await api<LeadList>('PATCH', `/api/lists/${listId}`, { name }));
      setRenaming(false);
    });
  };
  const remove = () =>
    void action.run(async () => {
      await api('DELETE', `/api/lists/${listId}`);
      location.hash = '#/lists';
    });
  const exportAll = () =>
    void action.run(async () => {
      const all: Lead[] = [];
      for (let p = 1; ; p++) {
        const chunk = await get<Page<Lead>>(`/api/lists/${listId}/leads${query({ page: p, limit: 100 })}`);
        all.push(...chunk.data);
        if (p >= chunk.totalPages) break;
      }
      saveFile(
        `${current.name}.csv`,
        toCsv(EXPORT_COLUMNS, all as unknown as Array<Record<string, unknown>>),
      );
    });

  return (
    <section>
      <p>
        <a href="#/lists">← All lists</a>
      </p>
      {renaming ? (
        <form class="inline" onSubmit={rename}>
          <label>
            List name
            <input name="name" required defaultValue={current.name} maxLength={200} />
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
          {current.name} <span class="count">{current.leadCount} leads</span>
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
        <button type="button" onClick={exportAll} disabled={action.busy || current.leadCount === 0}>
          Export CSV
        </button>
        <ConfirmButton
          label="Delete list"
          confirm={`Delete "${current.name}" and its ${current.leadCount} leads`}
          onConfirm={remove}
        />
      </div>
      <ErrorNote error={action.error} />
      <Import
        listId={listId}
        onImported={() => {
          list.reload();
          leads.reload();
        }}
      />
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
      <ErrorNote error={leads.error} />
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

const EXPORT_COLUMNS = [
  'firstName',
  'lastName',
  'title',
  'company',
  'companyDomain',
  'email',
  'emailStatus',
  'networkUrl',
  'workEmail',
  'personalEmail',
  'phone',
  'source',
];

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
          <dd>{lead.phone}</dd>
        </>
      )}
      {!lead.workEmail && !lead.personalEmail && !lead.phone && <dd>nothing verified found</dd>}
    </dl>
  );
}

interface ImportResult {
  created: number;
  skipped: number;
  errors: Array<{ row: number; message: string }>;
}

function Import({ listId, onImported }: { listId: string; onImported: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const action = useAction();
  const pick = async (event: Event) => {
    const picked = (event.currentTarget as HTMLInputElement).files?.[0] ?? null;
    setFile(picked);
    setResult(null);
    action.setError(null);
    setPreview(picked ? previewCsv(await picked.slice(0, 64 * 1024).text()) : null);
  };
  // The server's own header rules, so the preview shows exactly what the import will read.
  const mapping = preview ? mapHeader(preview.columns, LEAD_CSV_ALIASES) : new Map<number, string>();
  const upload = () =>
    void action.run(async () => {
      const form = new FormData();
      form.append('file', file!);
      setResult(await post<ImportResult>(`/api/lists/${listId}/leads/import`, form));
      onImported();
    });
  return (
    <details class="card" open={!!file}>
      <summary>Import leads from a CSV</summary>
      <p class="hint">
        One lead per row. Columns named like the lead fields: first_name, last_name, title, company,
        company_domain, email, network_url, work_email, personal_email, phone (common aliases accepted). Rows
        that cannot be read are skipped and listed below.
      </p>
      <label>
        CSV file
        <input type="file" accept=".csv,text/csv" onChange={pick} data-testid="import-file" />
      </label>
      {preview && (
        <>
          <h3>Preview: {preview.columns.length} columns</h3>
          <p class="hint">
            The second header line says which lead field each column fills; columns marked “ignored” are not
            imported.
          </p>
          <DataTable
            class="preview"
            columns={preview.columns.map((column, i): Column<string[]> => ({
              header: column || <em>(empty)</em>,
              cell: (row) => row[i] ?? '',
            }))}
            head={
              <tr data-testid="column-mapping">
                {preview.columns.map((_, i) => (
                  <th key={i} scope="col" class={mapping.has(i) ? 'mapped' : 'ignored'}>
                    {mapping.has(i) ? `→ ${mapping.get(i)}` : 'ignored'}
                  </th>
                ))}
              </tr>
            }
            rows={preview.rows}
            rowKey={(_, r) => r}
          />
          <button type="button" class="primary" onClick={upload} disabled={action.busy}>
            {action.busy ? 'Importing…' : `Import ${file?.name ?? ''}`}
          </button>
        </>
      )}
      <ErrorNote error={action.error} />
      {result && (
        <div data-testid="import-report">
          <Notice>
            Imported {counted(result.created, 'lead')}; {counted(result.skipped, 'row')} refused.
          </Notice>
          {result.errors.length > 0 && (
            <ul class="refused">
              {result.errors.map((e) => (
                <li key={e.row}>
                  Row {e.row}: {e.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </details>
  );
}
