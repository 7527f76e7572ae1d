import { useState } from 'preact/hooks';
import { get, post, query } from '../api.ts';
import { SAMPLES } from '../samples.ts';
import { type Column, DataTable, JobsSection } from '../table.tsx';
import type { ScrapeItem, ScrapeJob } from '../types.ts';
import { num, when, words } from '../format.ts';
import {
  ErrorNote,
  fullName,
  JobFailure,
  LoadFailed,
  Loading,
  Notice,
  Pager,
  Progress,
  useAction,
  useJobEvents,
  useLoad,
} from '../ui.tsx';

const KIND_LABEL: Record<ScrapeJob['inputType'], string> = { companies: 'Companies', names: 'Names', domains: 'Domains' };

const KINDS = [
  [
    'companies',
    'Companies',
    'a company column, and optionally a role: finds people with that role at each company.',
    SAMPLES.companies,
  ],
  [
    'names',
    'Names',
    'first and last name (or a full name) and a company: finds each named person’s profile.',
    SAMPLES.names,
  ],
  [
    'domains',
    'Domains',
    'a company domain or website, and optionally a role: finds people at the company behind the domain.',
    SAMPLES.domains,
  ],
] as const;

const JOB_COLUMNS: Array<Column<ScrapeJob>> = [
  { header: 'Name', cell: (job) => <a href={`#/scrape/${job.id}`}>{job.name}</a> },
  { header: 'Kind', cell: (job) => KIND_LABEL[job.inputType] },
  { header: 'Status', cell: (job) => words(job.status) },
  { header: 'Found', cell: (job) => `${num(job.foundItems)} of ${num(job.totalItems)}`, numeric: true },
  { header: 'Started', cell: (job) => when(job.createdAt) },
];

const ITEM_COLUMNS: Array<Column<ScrapeItem>> = [
  { header: 'Row', cell: (item) => num(item.rowNumber), numeric: true },
  { header: 'Input', cell: (item) => [item.company ?? item.domain, item.role].filter(Boolean).join(' · ') },
  {
    header: 'Status',
    cell: (item) => (
      <>
        {words(item.status)}
        {item.error && <div class="hint">{item.error}</div>}
      </>
    ),
  },
  { header: 'Person', cell: (item) => fullName(item) },
  {
    header: 'Profile',
    cell: (item) =>
      item.networkUrl ? (
        <a href={item.networkUrl} rel="noreferrer noopener" target="_blank">
          {item.networkUrl.replace('https://www.', '')}
        </a>
      ) : (
        '—'
      ),
  },
];

const TERMINAL = (job: ScrapeJob) => job.status === 'completed' || job.status === 'failed';

export function ScrapeScreen() {
  const upload = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    for (const key of ['name', 'inputType']) if (!form.get(key)) form.delete(key);
    void upload.run(async () => {
      const created = await post<{ job: ScrapeJob; message: string }>('/api/scrape/jobs', form);
      location.hash = `#/scrape/${created.job.id}`;
    });
  };
  return (
    <section>
      <h1>Scrape: find profiles</h1>
      <form class="card" onSubmit={submit} aria-label="Upload a scrape file">
        <h2>Upload a CSV</h2>
        <p>The header row decides what each row is. Three kinds of file:</p>
        <ul>
          {KINDS.map(([kind, title, text, sample]) => (
            <li key={kind}>
              <strong>{title}</strong>: {text}{' '}
              <a href={sample} download={`${kind}.csv`}>
                Sample {kind}.csv
              </a>
            </li>
          ))}
        </ul>
        <label>
          CSV file
          <input type="file" name="file" accept=".csv,text/csv" required />
        </label>
        <label>
          Job name (optional; the file name otherwise)
          <input name="name" maxLength={200} />
        </label>
        <label>
          Kind
          <select name="inputType">
            <option value="">Detect from the header row</option>
            {KINDS.map(([kind, title]) => (
              <option key={kind} value={kind}>
                {title}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={upload.busy}>
          {upload.busy ? 'Uploading…' : 'Start scrape'}
        </button>
        <ErrorNote error={upload.error} />
      </form>
      <JobsSection
        path="/api/scrape/jobs"
        what="scrape jobs"
        columns={JOB_COLUMNS}
        empty="No scrape job yet: upload a CSV above (try a sample file)."
      />
    </section>
  );
}

const ITEMS_PER_PAGE = 50;

export function ScrapeJobScreen({ jobId }: { jobId: string }) {
  const job = useLoad(() => get<ScrapeJob>(`/api/scrape/jobs/${jobId}?itemsLimit=1`), [jobId]);
  // Items page by row number (keyset): page n starts after row (n-1) × size, rows being 1..totalItems.
  const [itemsPage, setItemsPage] = useState(1);
  const items = useLoad(
    () =>
      get<ScrapeJob & { items: ScrapeItem[] }>(
        `/api/scrape/jobs/${jobId}${query({ itemsAfterRow: (itemsPage - 1) * ITEMS_PER_PAGE, itemsLimit: ITEMS_PER_PAGE })}`,
      ),
    [jobId, itemsPage],
  );
  useJobEvents<ScrapeJob>(
    job.data && !TERMINAL(job.data) ? `/api/scrape/jobs/${jobId}/events` : null,
    (next) => {
      job.setData(next);
      items.reload();
    },
    TERMINAL,
  );
  const action = useAction();
  const [synced, setSynced] = useState<{ listId: string; leadsCount: number; message: string } | null>(null);
  if (!job.data)
    return job.error ? (
      <LoadFailed error={job.error} what="the scrape job" onRetry={job.reload} />
    ) : (
      <Loading what="the scrape job" />
    );
  const j = job.data;
  const control = (verb: 'pause' | 'resume') =>
    void action.run(async () => {
      job.setData(await post<ScrapeJob>(`/api/scrape/jobs/${jobId}/${verb}`));
    });
  const sync = () =>
    void action.run(async () => {
      setSynced(await post(`/api/scrape/jobs/${jobId}/sync`));
      job.reload();
    });
  const totalPages = Math.max(1, Math.ceil(j.totalItems / ITEMS_PER_PAGE));
  return (
    <section>
      <p>
        <a href="#/scrape">← All scrape jobs</a>
      </p>
      <h1>{j.name}</h1>
      {j.status === 'failed' && <JobFailure reason={j.failureReason} />}
      <dl class="facts">
        <dt>Kind</dt>
        <dd>{KIND_LABEL[j.inputType]}</dd>
        <dt>Status</dt>
        <dd data-testid="scrape-status">{words(j.status)}</dd>
        <dt>Found</dt>
        <dd data-testid="found">
          {num(j.foundItems)} profiles in {num(j.completedItems)} rows searched
        </dd>
      </dl>
      <Progress done={j.completedItems} total={j.totalItems} label="Scrape progress" />
      <div class="actions">
        {(j.status === 'pending' || j.status === 'processing') && (
          <button type="button" onClick={() => control('pause')} disabled={action.busy}>
            Pause
          </button>
        )}
        {j.status === 'paused' && (
          <button type="button" class="primary" onClick={() => control('resume')} disabled={action.busy}>
            Resume
          </button>
        )}
        <a class="button" href={`/api/scrape/jobs/${jobId}/download`} download>
          Download CSV
        </a>
        <a class="button" href={`/api/scrape/jobs/${jobId}/download?foundOnly=true`} download>
          Download found only
        </a>
        <button type="button" onClick={sync} disabled={action.busy}>
          {j.listId ? 'Sync new finds into the list' : 'Sync finds into a new list'}
        </button>
      </div>
      <ErrorNote error={action.error} />
      {synced && (
        <Notice>
          {synced.message} <a href={`#/lists/${synced.listId}`}>Open the list</a>
        </Notice>
      )}
      {!synced && j.listId && (
        <p>
          Synced into <a href={`#/lists/${j.listId}`}>its list</a>.
        </p>
      )}
      <h2>Items</h2>
      {!items.data ? (
        items.error ? (
          <LoadFailed error={items.error} what="the items" onRetry={items.reload} />
        ) : (
          <Loading what="items" />
        )
      ) : (
        <>
          <DataTable
            columns={ITEM_COLUMNS}
            rows={items.data.items}
            rowKey={(item) => item.id}
            testId="items"
          />
          <Pager
            page={{ data: [], total: j.totalItems, page: itemsPage, limit: ITEMS_PER_PAGE, totalPages }}
            onPage={setItemsPage}
          />
        </>
      )}
    </section>
  );
}
