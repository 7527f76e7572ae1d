import { useState } from 'preact/hooks';
import { get, post, query } from '../api.ts';
import { ListSelect, ResultSelect, usePickableLists } from '../pickers.tsx';
import { useSession } from '../session.ts';
import { type Column, DataTable, PagedTable, usePaged } from '../table.tsx';
import type { DomainStat, Estimate, Transcript, VerificationJob, VerificationResult } from '../types.ts';
import {
  Empty,
  ErrorNote,
  hashParam,
  JobFailure,
  Loading,
  Notice,
  percent,
  Progress,
  Status,
  money,
  useAction,
  useJobEvents,
  useLoad,
  when,
  words,
} from '../ui.tsx';

import { API_PRICE_MICROS } from '../../src/domain/verification.ts';
import { CatchAllCalibration, CatchAllScore, ScoredFill, type ScoreRange, ScoreFilter } from './catch-all.tsx';

/** The provider's price per address; a job's estimate route answers the same figure. */
const PRICE_PER_EMAIL = API_PRICE_MICROS / 1_000_000;

const METHODS = [
  {
    value: 'smtp_only',
    title: 'SMTP check (free)',
    text: 'Asks each address’s mail server whether the mailbox exists, without sending mail. Free. Some servers accept every address (catch-all) or do not answer (unknown): those stay open.',
  },
  {
    value: 'smtp_api_fallback',
    title: `SMTP, then pay to fill the gaps (${money(PRICE_PER_EMAIL)} per gap)`,
    text: 'Runs the free SMTP check first, then shows what is still unknown or catch-all and what filling it would cost. You choose: keep the free result, or pay the verification provider for the unknowns, the catch-alls or both.',
  },
  {
    value: 'api_only',
    title: `Provider only (${money(PRICE_PER_EMAIL)} per email)`,
    text: 'Free syntax and domain checks first (bad addresses cost nothing), then every remaining address goes to the paid verification provider.',
  },
] as const;

const TERMINAL = (job: VerificationJob) =>
  job.verificationStage === 'completed' || job.verificationStage === 'failed';

const JOB_COLUMNS: Array<Column<VerificationJob>> = [
  { header: 'List', cell: (job) => <a href={`#/verification/${job.id}`}>{job.listName}</a> },
  { header: 'Method', cell: (job) => words(job.verificationMethod) },
  { header: 'Stage', cell: (job) => words(job.verificationStage) },
  { header: 'Emails', cell: (job) => job.totalEmails, numeric: true },
  { header: 'Coverage', cell: (job) => percent(job.coveragePercentage), numeric: true },
  { header: 'Started', cell: (job) => when(job.createdAt) },
];

export function VerificationScreen() {
  const lists = usePickableLists();
  const jobs = usePaged<VerificationJob>('/api/verification/jobs');
  const start = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    void start.run(async () => {
      const job = await post<VerificationJob>('/api/verification/jobs', {
        listId: data.get('listId'),
        verificationMethod: data.get('method'),
      });
      location.hash = `#/verification/${job.id}`;
    });
  };
  const preselected = hashParam('list') ?? undefined;
  return (
    <section>
      <h1>Email verification</h1>
      <form class="card" onSubmit={submit} aria-label="Start a verification">
        <h2>Verify a list</h2>
        {lists.data && lists.data.total === 0 ? (
          <Empty>
            You have no list to verify yet. <a href="#/lists">Create a list and import leads</a> first.
          </Empty>
        ) : (
          <>
            <ListSelect name="listId" lists={lists.data?.data ?? []} defaultValue={preselected} />
            <fieldset>
              <legend>Method</legend>
              {METHODS.map((method, i) => (
                <label key={method.value} class="choice">
                  <input type="radio" name="method" value={method.value} defaultChecked={i === 0} />
                  <span>
                    <strong>{method.title}</strong>
                    <span class="hint">{method.text}</span>
                  </span>
                </label>
              ))}
            </fieldset>
            <button type="submit" class="primary" disabled={start.busy || !lists.data}>
              Start verification
            </button>
          </>
        )}
        <ErrorNote error={start.error ?? lists.error} />
      </form>
      <h2>Jobs</h2>
      <ErrorNote error={jobs.error} />
      <PagedTable
        paged={jobs}
        what="verification jobs"
        columns={JOB_COLUMNS}
        rowKey={(job) => job.id}
        empty="No verification yet: pick a list and a method above."
      />
      <CatchAllCalibration />
    </section>
  );
}

const STAGE_TEXT: Record<VerificationJob['verificationStage'], string> = {
  pending: 'Waiting to start',
  smtp_verifying: 'Checking mail servers',
  awaiting_decision: 'Waiting for your decision',
  api_verifying: 'Verifying with the provider',
  completed: 'Completed',
  failed: 'Failed',
};

/** One row of the counts table: who gave the results (SMTP or the provider) and how many of each. */
interface CountRow {
  by: string;
  valid: number;
  invalid: number;
  catchAll: number;
  unknown: number;
}

const countRows = (j: VerificationJob): CountRow[] => [
  {
    by: 'SMTP',
    valid: j.smtpValidCount,
    invalid: j.smtpInvalidCount,
    catchAll: j.smtpCatchAllCount,
    unknown: j.smtpUnknownCount,
  },
  ...(j.apiVerifiedEmails > 0 || j.verificationStage === 'api_verifying'
    ? [
        {
          by: 'Provider',
          valid: j.apiValidCount,
          invalid: j.apiInvalidCount,
          catchAll: j.apiCatchAllCount,
          unknown: j.apiUnknownCount,
        },
      ]
    : []),
];

const COUNT_COLUMNS: Array<Column<CountRow>> = [
  { header: null, cell: (row) => row.by, rowHeader: true },
  { header: 'Valid', cell: (row) => row.valid },
  { header: 'Invalid', cell: (row) => row.invalid },
  { header: 'Catch-all', cell: (row) => row.catchAll },
  { header: 'Unknown', cell: (row) => row.unknown },
];

const DOMAIN_COLUMNS: Array<Column<DomainStat>> = [
  {
    header: 'Domain',
    cell: (d) => (
      <>
        {d.domain}
        {d.isCatchAll && <span class="tag">accepts every address</span>}
      </>
    ),
  },
  { header: 'Emails', cell: (d) => d.totalEmails, numeric: true },
  { header: 'Valid', cell: (d) => d.validCount, numeric: true },
  { header: 'Invalid', cell: (d) => d.invalidCount, numeric: true },
  { header: 'Catch-all', cell: (d) => d.catchAllCount, numeric: true },
  { header: 'Unknown', cell: (d) => d.unknownCount, numeric: true },
];

export function VerificationJobScreen({ jobId }: { jobId: string }) {
  const job = useLoad(() => get<VerificationJob>(`/api/verification/jobs/${jobId}`), [jobId]);
  const domains = useLoad(
    () => get<{ domainStats: DomainStat[] }>(`/api/verification/jobs/${jobId}/progress`),
    [jobId],
  );
  const [resultsVersion, setResultsVersion] = useState(0);
  useJobEvents<VerificationJob>(
    job.data && !TERMINAL(job.data) ? `/api/verification/jobs/${jobId}/events` : null,
    (next) => {
      job.setData(next);
      domains.reload();
      if (TERMINAL(next) || next.verificationStage === 'awaiting_decision') setResultsVersion((v) => v + 1);
    },
    TERMINAL,
  );
  if (job.error) return <ErrorNote error={job.error} />;
  if (!job.data) return <Loading what="the verification job" />;
  const j = job.data;
  const running = !TERMINAL(j) && j.verificationStage !== 'awaiting_decision';
  return (
    <section>
      <p>
        <a href="#/verification">← All verification jobs</a>
      </p>
      <h1>
        Verification of <a href={`#/lists/${j.listId}`}>{j.listName}</a>
      </h1>
      {j.warnings.length > 0 && (
        <div class="warnings" role="alert">
          <strong>Read this before trusting the results:</strong>
          <ul>
            {j.warnings.map((w) => (
              <li key={w.code}>{w.message}</li>
            ))}
          </ul>
        </div>
      )}
      {j.verificationStage === 'failed' && <JobFailure reason={j.failureReason} />}
      <dl class="facts">
        <dt>Method</dt>
        <dd>{words(j.verificationMethod)}</dd>
        <dt>Stage</dt>
        <dd data-testid="stage">{STAGE_TEXT[j.verificationStage]}</dd>
        <dt>Coverage</dt>
        <dd data-testid="coverage">{percent(j.coveragePercentage)} of addresses have a definite answer</dd>
        {j.apiVerifiedEmails > 0 && (
          <>
            <dt>Provider</dt>
            <dd>
              {j.apiVerifiedEmails} emails verified for {money(j.apiCost)}
            </dd>
          </>
        )}
      </dl>
      {running && <Progress done={j.processedEmails} total={j.totalEmails} label="Verification progress" />}
      {j.deferredCount > 0 && (
        <Notice>
          {j.deferredCount} addresses were asked to retry later (greylisting); they are retried automatically.
        </Notice>
      )}
      <DataTable
        columns={COUNT_COLUMNS}
        rows={countRows(j)}
        rowKey={(row) => row.by}
        testId="counts"
        class="counts"
        wrapClass="counts-wrap"
      />
      {j.verificationStage === 'awaiting_decision' && <Decision jobId={jobId} onDecided={job.reload} />}
      {j.userDecision && (
        <p>
          Your decision: {words(j.userDecision)}
          {j.catchAllMaxScore !== null ? `, catch-alls scored 0–${j.catchAllMaxScore} only` : ''}.
        </p>
      )}
      <h2>By domain</h2>
      {domains.data && domains.data.domainStats.length > 0 ? (
        <DataTable
          columns={DOMAIN_COLUMNS}
          rows={domains.data.domainStats}
          rowKey={(d) => d.domain}
          testId="domains"
        />
      ) : (
        <p class="hint">Domains appear as their servers are checked.</p>
      )}
      <Results jobId={jobId} version={resultsVersion} />
    </section>
  );
}

function Decision({ jobId, onDecided }: { jobId: string; onDecided: () => void }) {
  const estimate = useLoad(() => get<Estimate>(`/api/verification/jobs/${jobId}/estimate`), [jobId]);
  const { refresh } = useSession();
  const action = useAction();
  const decide = (decision: string, catchAllMaxScore?: number) =>
    void action.run(async () => {
      await post(`/api/verification/jobs/${jobId}/decision`, { decision, catchAllMaxScore });
      onDecided();
      void refresh();
    });
  if (estimate.error) return <ErrorNote error={estimate.error} />;
  if (!estimate.data) return <Loading what="the cost estimate" />;
  const e = estimate.data;
  const choices = [
    [
      'accept_current',
      'Keep the free result',
      null,
      1,
      `Coverage stays at ${percent(e.currentCoveragePercentage)}.`,
    ],
    [
      'fill_unknowns_only',
      `Verify the ${e.unknownCount} unknown`,
      e.fillUnknownsCost,
      e.unknownCount,
      'Servers that did not answer.',
    ],
    [
      'fill_catchall_only',
      `Verify the ${e.catchAllCount} catch-all`,
      e.fillCatchAllCost,
      e.catchAllCount,
      'Domains that accept every address.',
    ],
    [
      'fill_all_gaps',
      `Verify all ${e.totalGapCount} gaps`,
      e.fillAllGapsCost,
      e.totalGapCount,
      `Coverage up to ${percent(e.projectedCoveragePercentage)}.`,
    ],
  ] as const;
  return (
    <div class="card decision" data-testid="decision">
      <h2>Fill the gaps?</h2>
      <p>
        The free check left {e.unknownCount} unknown and {e.catchAllCount} catch-all addresses. The provider
        checks them for {money(e.costPerEmail)} each.
      </p>
      <div class="choices">
        {choices.map(([decision, label, cost, count, note]) => (
          <button
            key={decision}
            type="button"
            class={cost === null ? '' : 'primary'}
            disabled={action.busy || count === 0}
            onClick={() => decide(decision)}
          >
            <span>{label}</span>
            <strong class="price">{cost === null ? 'free' : money(cost)}</strong>
            <span class="hint">{count === 0 ? 'Nothing to fill.' : note}</span>
          </button>
        ))}
      </div>
      {e.catchAllCount > 0 && <ScoredFill estimate={e} busy={action.busy} onDecide={decide} />}
      <ErrorNote error={action.error} />
    </div>
  );
}

const RESULT_COLUMNS: Array<Column<VerificationResult>> = [
  { header: 'Email', cell: (r) => r.email },
  {
    header: 'Result',
    cell: (r) => (
      <>
        <Status value={r.result} />
        <div class="hint">by {r.source ?? '—'}</div>
        <CatchAllScore score={r.catchAllScore} reasons={r.catchAllReasons} />
      </>
    ),
  },
  {
    header: 'Evidence',
    cell: (r) => (
      <>
        {r.smtpCode !== null && !r.reason?.startsWith(String(r.smtpCode)) && (
          <code>
            {r.smtpCode}
            {r.enhancedCode ? ` ${r.enhancedCode}` : ''}
          </code>
        )}{' '}
        {r.reason ? words(r.reason) : ''}
      </>
    ),
  },
  {
    header: 'Mail server',
    cell: (r) => (
      <>
        {r.mxHost ?? '—'}
        {r.mxProvider && <div class="hint">{r.mxProvider}</div>}
      </>
    ),
  },
  { header: 'Attempts', cell: (r) => r.attempts, numeric: true },
];

function Results({ jobId, version }: { jobId: string; version: number }) {
  const [filter, setFilter] = useState('');
  const [scores, setScores] = useState<ScoreRange>({ minScore: '', maxScore: '' });
  const results = usePaged<VerificationResult>(
    `/api/verification/jobs/${jobId}/results`,
    { limit: 25, result: filter, ...scores },
    [version],
  );
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <h2>
        Results{' '}
        <a
          class="button"
          href={`/api/verification/jobs/${jobId}/results/download${query({ result: filter, ...scores })}`}
          download
        >
          Download CSV
        </a>
      </h2>
      <label class="inline">
        Show
        <ResultSelect
          value={filter}
          onPick={(result) => {
            results.setPage(1);
            setFilter(result);
          }}
        />
      </label>
      <ScoreFilter
        range={scores}
        onChange={(range) => {
          results.setPage(1);
          setScores(range);
        }}
      />
      <ErrorNote error={results.error} />
      <PagedTable
        paged={results}
        what="results"
        columns={[
          ...RESULT_COLUMNS,
          {
            header: null,
            cell: (r) =>
              r.attempts > 0 && (
                <button
                  type="button"
                  aria-expanded={open === r.email}
                  onClick={() => setOpen(open === r.email ? null : r.email)}
                >
                  {open === r.email ? 'Hide transcript' : 'Transcript'}
                </button>
              ),
          },
        ]}
        rowKey={(r) => r.email}
        detail={(r) => open === r.email && <TranscriptView jobId={jobId} email={r.email} />}
        testId="results"
        empty="No result yet: addresses appear here as they are checked."
      />
    </>
  );
}

function TranscriptView({ jobId, email }: { jobId: string; email: string }) {
  const detail = useLoad(
    () => get<Transcript>(`/api/verification/jobs/${jobId}/results/${encodeURIComponent(email)}`),
    [jobId, email],
  );
  if (detail.error) return <ErrorNote error={detail.error} />;
  if (!detail.data) return <Loading what="the transcript" />;
  if (detail.data.transcript.length === 0)
    return <p class="hint">No SMTP conversation was recorded for this address.</p>;
  return (
    <div class="transcript" data-testid="transcript">
      {detail.data.transcript.map((attempt, i) => (
        <div key={i}>
          <p class="hint">
            Attempt {i + 1} · {attempt.mxHost} ({attempt.ip}) · {when(attempt.at)}
          </p>
          <pre>{attempt.lines.map((line) => `${line.dir === 'C' ? '→' : '←'} ${line.text}`).join('\n')}</pre>
        </div>
      ))}
    </div>
  );
}
