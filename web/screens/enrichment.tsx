import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { counted, credits, num, phone, when, words } from '../format.ts';
import { ListSelect, usePickableLists } from '../pickers.tsx';
import { useSession } from '../session.ts';
import { type Column, PagedTable, usePaged } from '../table.tsx';
import type { BulkJob } from '../types.ts';
import {
  Empty,
  ErrorNote,
  FieldError,
  hashParam,
  invalidField,
  JobFailure,
  LoadFailed,
  Loading,
  PaidAction,
  Progress,
  useAction,
  useJobEvents,
  useLoad,
} from '../ui.tsx';
import { FindEmail } from './find-email.tsx';
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

const PROFILE_LABELS = {
  firstName: 'First name',
  lastName: 'Last name',
  title: 'Job title',
  company: 'Company',
  workEmail: 'Work email',
  personalEmail: 'Personal email',
  phone: 'Phone',
} as const;

interface EnrichResult {
  success: boolean;
  profile: Record<string, string | null | undefined>;
  creditsUsed: number;
  withheld: string[];
}

const TERMINAL = (job: BulkJob) => job.status === 'completed' || job.status === 'failed';
const STATUS_LABEL: Record<BulkJob['status'], string> = {
  pending: 'Waiting to start',
  processing: 'Enriching',
  completed: 'Completed',
  failed: 'Failed',
};

export function EnrichmentScreen({ jobId }: { jobId?: string }) {
  // The jobs table below follows the job shown above: every message of its live stream reloads it.
  const [jobsVersion, setJobsVersion] = useState(0);
  return (
    <section>
      <h1>Enrichment</h1>
      <p class="hint">
        Finds work email, personal email and phone through the providers set in <a href="#/settings">Settings</a>.
        You pay credits only for verified data returned:{' '}
        {FIELDS.map(([, label, price]) => `${label.toLowerCase()} ${credits(price)}`).join(', ')}. A profile enriched
        in the last 30 days costs nothing again.
      </p>
      {jobId ? <BulkJobView jobId={jobId} onChange={() => setJobsVersion((v) => v + 1)} /> : <BulkStart />}
      <FindEmail />
      <SingleLookup />
      <BulkJobs version={jobsVersion} />
    </section>
  );
}

const PROFILE_URL = /linkedin\.com\/in\/[^/?#\s]+/i;

function SingleLookup() {
  const { refresh } = useSession();
  const [result, setResult] = useState<EnrichResult | null>(null);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const networkUrl = String(new FormData(event.currentTarget as HTMLFormElement).get('networkUrl')).trim();
    void action.run(async () => {
      setResult(null);
      if (!PROFILE_URL.test(networkUrl))
        throw invalidField('networkUrl', 'must be a profile URL such as https://www.linkedin.com/in/jane-doe');
      setResult(await post<EnrichResult>('/api/enrichment/enrich', { networkUrl }));
      void refresh();
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Look up one profile" noValidate>
      <h2>Look up one profile</h2>
      <label>
        Profile URL
        <input name="networkUrl" required placeholder="https://www.linkedin.com/in/jane-doe" />
        <FieldError error={action.error} field="networkUrl" />
      </label>
      <button type="submit" class="primary" disabled={action.busy}>
        {action.busy ? 'Looking up…' : 'Enrich'}
      </button>
      <ErrorNote error={action.error} fields={['networkUrl']} />
      {result && (
        <div data-testid="enrich-result">
          {!result.success ? (
            <p>No provider knows this profile. Nothing was charged.</p>
          ) : (
            <dl class="facts">
              {(Object.keys(PROFILE_LABELS) as Array<keyof typeof PROFILE_LABELS>).map((key) => (
                <Fragment key={key}>
                  <dt>{PROFILE_LABELS[key]}</dt>
                  <dd>{key === 'phone' ? phone(result.profile[key] ?? null) : (result.profile[key] ?? '—')}</dd>
                </Fragment>
              ))}
            </dl>
          )}
          <p>
            Credits used: <strong>{num(result.creditsUsed)}</strong>.
            {result.withheld.length > 0 &&
              ` Found but not delivered for lack of credits: ${result.withheld.map((f) => LABELS[f as EnrichmentField] ?? words(f)).join(', ')}.`}
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
  const start = () =>
    void action.run(async () => {
      const job = await post<BulkJob>('/api/enrichment/bulk', { listId: list!.id, fields });
      location.hash = `#/enrichment/${job.jobId}`;
    });
  return (
    <form class="card" onSubmit={(event) => event.preventDefault()} aria-label="Enrich a list">
      <h2>Enrich a whole list</h2>
      {!lists.data ? (
        lists.error ? (
          <LoadFailed error={lists.error} what="your lists" onRetry={lists.reload} />
        ) : (
          <Loading what="your lists" />
        )
      ) : lists.data.total === 0 ? (
        <Empty>
          No list yet. <a href="#/lists">Create a list</a> of leads with profile URLs, or names and company domains,
          first.
        </Empty>
      ) : (
        <>
          <ListSelect lists={lists.data.data} value={list?.id} onPick={setListId} />
          <fieldset>
            <legend>Find</legend>
            {FIELDS.map(([key, label, price]) => (
              <label key={key} class="choice">
                <input
                  type="checkbox"
                  checked={fields.includes(key)}
                  onChange={(event) => {
                    const on = (event.currentTarget as HTMLInputElement).checked;
                    setFields(ENRICHMENT_FIELDS.filter((k) => (k === key ? on : fields.includes(k))));
                  }}
                />
                {label} ({credits(price)})
              </label>
            ))}
          </fieldset>
          {fields.length === 0 && <p class="field-error">Choose at least one thing to find.</p>}
          <p data-testid="bulk-estimate">
            At most <strong>{credits(estimate)}</strong> for {counted(list?.leadCount ?? 0, 'lead')}; you have{' '}
            {credits(me.organization.creditBalance)}. Leads are skipped when credits run out.
          </p>
          <PaidAction
            label="Start enrichment"
            total={`At most ${credits(estimate)}`}
            what={`enrich ${counted(list?.leadCount ?? 0, 'lead')}`}
            onConfirm={start}
            disabled={action.busy || !list || fields.length === 0}
          />
        </>
      )}
      <ErrorNote error={action.error} />
    </form>
  );
}

function BulkJobView({ jobId, onChange }: { jobId: string; onChange: () => void }) {
  const { refresh } = useSession();
  const job = useLoad(() => get<BulkJob>(`/api/enrichment/bulk/${jobId}`), [jobId]);
  useJobEvents<BulkJob>(
    job.data && !TERMINAL(job.data) ? `/api/enrichment/bulk/${jobId}/events` : null,
    (next) => {
      job.setData(next);
      onChange();
      void refresh();
    },
    TERMINAL,
  );
  if (!job.data)
    return job.error ? (
      <LoadFailed error={job.error} what="the enrichment job" onRetry={job.reload} />
    ) : (
      <Loading what="the enrichment job" />
    );
  const j = job.data;
  return (
    <div class="card" data-testid="bulk-job">
      <h2>
        Enriching <a href={`#/lists/${j.listId}`}>the list</a>: {STATUS_LABEL[j.status]}
      </h2>
      {j.status === 'failed' && <JobFailure reason={j.failureReason} />}
      <Progress done={j.processedLeads} total={j.totalLeads} label="Enrichment progress" />
      <dl class="facts">
        <dt>Finding</dt>
        <dd>{j.fields.map((f) => LABELS[f].toLowerCase()).join(', ')}</dd>
        <dt>Found</dt>
        <dd>{counted(j.successCount, 'lead')}</dd>
        <dt>Nothing found</dt>
        <dd>{counted(j.failedCount, 'lead')}</dd>
        <dt>Credits used</dt>
        <dd data-testid="bulk-credits">
          {num(j.creditsUsed)} of at most {credits(j.estimatedCredits)}
        </dd>
      </dl>
      {j.stopReason === 'insufficient_credits' && (
        <p class="warnings" role="alert">
          Credits ran out: {counted(j.skippedCount, 'lead was', 'leads were')} skipped. Ask your operator for credits
          and enrich the list again.
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
  { header: 'Status', cell: (job) => STATUS_LABEL[job.status] },
  {
    header: 'Leads found',
    cell: (job) => `${num(job.successCount)} of ${num(job.totalLeads)}`,
    numeric: true,
  },
  { header: 'Credits', cell: (job) => num(job.creditsUsed), numeric: true },
  { header: 'Started', cell: (job) => when(job.createdAt) },
];

function BulkJobs({ version }: { version: number }) {
  const jobs = usePaged<BulkJob>('/api/enrichment/bulk', { limit: 10 }, [version]);
  const lists = usePickableLists();
  const name = (listId: string) => lists.data?.data.find((l) => l.id === listId)?.name ?? 'a list';
  return (
    <>
      <h2>List enrichments</h2>
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
