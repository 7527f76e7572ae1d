import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { ListSelect, usePickableLists } from '../pickers.tsx';
import { useSession } from '../session.ts';
import { type Column, PagedTable, usePaged } from '../table.tsx';
import type { BulkJob } from '../types.ts';
import {
  Empty,
  ErrorNote,
  hashParam,
  JobFailure,
  Loading,
  Progress,
  useAction,
  useJobEvents,
  useLoad,
  when,
  words,
} from '../ui.tsx';
import {
  CREDIT_PRICES,
  ENRICHMENT_FIELDS,
  type EnrichmentField,
  estimateCredits,
} from '../../src/domain/enrichment.ts';

const LABELS: Record<EnrichmentField, string> = {
  workEmail: 'Work email',
  personalEmail: 'Personal email',
  phone: 'Phone',
};
const FIELDS = ENRICHMENT_FIELDS.map((key) => [key, LABELS[key], CREDIT_PRICES[key]] as const);

interface EnrichResult {
  success: boolean;
  profile: Record<string, string | null | undefined>;
  creditsUsed: number;
  withheld: string[];
}

const TERMINAL = (job: BulkJob) => job.status === 'completed' || job.status === 'failed';

export function EnrichmentScreen({ jobId }: { jobId?: string }) {
  return (
    <section>
      <h1>Enrichment</h1>
      <p class="hint">
        Finds work email, personal email and phone from a profile URL through the providers set in{' '}
        <a href="#/settings">Settings</a>. You pay credits only for verified data returned:{' '}
        {FIELDS.map(([, label, credits]) => `${label.toLowerCase()} ${credits}`).join(', ')}. A profile
        enriched in the last 30 days costs nothing again.
      </p>
      {jobId ? <BulkJobView jobId={jobId} /> : <BulkStart />}
      <SingleLookup />
      <BulkJobs />
    </section>
  );
}

function SingleLookup() {
  const { refresh } = useSession();
  const [result, setResult] = useState<EnrichResult | null>(null);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const networkUrl = String(new FormData(event.currentTarget as HTMLFormElement).get('networkUrl'));
    void action.run(async () => {
      setResult(null);
      setResult(await post<EnrichResult>('/api/enrichment/enrich', { networkUrl }));
      void refresh();
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Look up one profile">
      <h2>Look up one profile</h2>
      <label>
        Profile URL
        <input name="networkUrl" required placeholder="https://www.linkedin.com/in/jane-doe" />
      </label>
      <button type="submit" class="primary" disabled={action.busy}>
        {action.busy ? 'Looking up…' : 'Enrich'}
      </button>
      <ErrorNote error={action.error} />
      {result && (
        <div data-testid="enrich-result">
          {!result.success ? (
            <p>No provider knows this profile. Nothing was charged.</p>
          ) : (
            <dl class="facts">
              {(
                ['firstName', 'lastName', 'title', 'company', 'workEmail', 'personalEmail', 'phone'] as const
              ).map((key) => (
                <Fragment key={key}>
                  <dt>{words(key.replace(/[A-Z]/g, (c) => ` ${c.toLowerCase()}`))}</dt>
                  <dd>{result.profile[key] ?? '—'}</dd>
                </Fragment>
              ))}
            </dl>
          )}
          <p>
            Credits used: <strong>{result.creditsUsed}</strong>.
            {result.withheld.length > 0 &&
              ` Found but not delivered for lack of credits: ${result.withheld.map(words).join(', ')}.`}
          </p>
        </div>
      )}
    </form>
  );
}

function BulkStart() {
  const lists = usePickableLists();
  const { me } = useSession();
  const [listId, setListId] = useState<string | null>(hashParam('list'));
  const [fields, setFields] = useState<EnrichmentField[]>([...ENRICHMENT_FIELDS]);
  const action = useAction();
  const list = lists.data?.data.find((l) => l.id === listId) ?? lists.data?.data[0];
  // The same upper bound the service answers once the job is created (leads × credits of the fields).
  const estimate = estimateCredits(list?.leadCount ?? 0, fields);
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const job = await post<BulkJob>('/api/enrichment/bulk', { listId: list!.id, fields });
      location.hash = `#/enrichment/${job.jobId}`;
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Enrich a list">
      <h2>Enrich a whole list</h2>
      {!lists.data ? (
        <Loading what="your lists" />
      ) : lists.data.total === 0 ? (
        <Empty>
          No list yet. <a href="#/lists">Create a list</a> of leads with profile URLs first.
        </Empty>
      ) : (
        <>
          <ListSelect lists={lists.data.data} value={list?.id} onPick={setListId} />
          <fieldset>
            <legend>Find</legend>
            {FIELDS.map(([key, label, credits]) => (
              <label key={key} class="choice">
                <input
                  type="checkbox"
                  checked={fields.includes(key)}
                  onChange={(event) => {
                    const on = (event.currentTarget as HTMLInputElement).checked;
                    setFields(ENRICHMENT_FIELDS.filter((k) => (k === key ? on : fields.includes(k))));
                  }}
                />
                {label} ({credits} credit{credits > 1 ? 's' : ''})
              </label>
            ))}
          </fieldset>
          <p data-testid="bulk-estimate">
            At most <strong>{estimate} credits</strong> for {list?.leadCount ?? 0} leads; you have{' '}
            {me.organization.creditBalance}. Leads are skipped when credits run out.
          </p>
          <button type="submit" class="primary" disabled={action.busy || !list || fields.length === 0}>
            Start enrichment
          </button>
        </>
      )}
      <ErrorNote error={action.error ?? lists.error} />
    </form>
  );
}

function BulkJobView({ jobId }: { jobId: string }) {
  const { refresh } = useSession();
  const job = useLoad(() => get<BulkJob>(`/api/enrichment/bulk/${jobId}`), [jobId]);
  useJobEvents<BulkJob>(
    job.data && !TERMINAL(job.data) ? `/api/enrichment/bulk/${jobId}/events` : null,
    (next) => {
      job.setData(next);
      void refresh();
    },
    TERMINAL,
  );
  if (job.error) return <ErrorNote error={job.error} />;
  if (!job.data) return <Loading what="the enrichment job" />;
  const j = job.data;
  return (
    <div class="card" data-testid="bulk-job">
      <h2>
        Enriching <a href={`#/lists/${j.listId}`}>the list</a>: {words(j.status)}
      </h2>
      {j.status === 'failed' && <JobFailure reason={j.failureReason} />}
      <Progress done={j.processedLeads} total={j.totalLeads} label="Enrichment progress" />
      <dl class="facts">
        <dt>Found</dt>
        <dd>{j.successCount} leads</dd>
        <dt>Nothing found</dt>
        <dd>{j.failedCount} leads</dd>
        <dt>Credits used</dt>
        <dd data-testid="bulk-credits">
          {j.creditsUsed} of at most {j.estimatedCredits}
        </dd>
      </dl>
      {j.stopReason === 'insufficient_credits' && (
        <p class="warnings" role="alert">
          Credits ran out: {j.skippedCount} leads were skipped. Ask your operator for credits and enrich the
          list again.
        </p>
      )}
      {j.status === 'completed' && (
        <p>
          The results are on the leads: <a href={`#/lists/${j.listId}`}>open the list</a>.{' '}
          <a href="#/enrichment">Start another enrichment</a>.
        </p>
      )}
    </div>
  );
}

const JOB_COLUMNS: Array<Column<BulkJob>> = [
  { header: 'Status', cell: (job) => words(job.status) },
  { header: 'Leads found', cell: (job) => `${job.successCount} of ${job.totalLeads}`, numeric: true },
  { header: 'Credits', cell: (job) => job.creditsUsed, numeric: true },
  { header: 'Started', cell: (job) => when(job.createdAt) },
];

function BulkJobs() {
  const jobs = usePaged<BulkJob>('/api/enrichment/bulk', { limit: 10 });
  const lists = usePickableLists();
  const name = (listId: string) => lists.data?.data.find((l) => l.id === listId)?.name ?? 'a list';
  return (
    <>
      <h2>List enrichments</h2>
      <ErrorNote error={jobs.error} />
      <PagedTable
        paged={jobs}
        what="enrichment jobs"
        columns={[
          { header: 'List', cell: (job) => <a href={`#/enrichment/${job.jobId}`}>{name(job.listId)}</a> },
          ...JOB_COLUMNS,
        ]}
        rowKey={(job) => job.jobId}
        testId="bulk-jobs"
        empty="No list enriched yet: pick a list above and start."
      />
    </>
  );
}
