import { useState } from 'preact/hooks';
import { get, post, query } from '../api.ts';
import { Breakdown, BreakdownCell } from '../breakdown.tsx';
import { counted, DECISION_LABEL, METHOD_LABEL, money, num, percent, SOURCE_LABEL, STAGE_LABEL, when, words } from '../format.ts';
import { ListSelect, ResultSelect, usePickableLists } from '../pickers.tsx';
import { useSession } from '../session.ts';
import { type Column, DataTable, JobsSection, PagedTable, usePaged } from '../table.tsx';
import type { VerificationMethod } from '../../src/domain/verification.ts';
import type { DomainStat, Estimate, Transcript, VerificationJob, VerificationResult } from '../types.ts';
import {
  Empty,
  ErrorNote,
  hashParam,
  JobFailure,
  LoadFailed,
  Loading,
  PaidAction,
  Progress,
  Status,
  useAction,
  useJobEvents,
  useLoad,
} from '../ui.tsx';

import { CatchAllCalibration, CatchAllScore, ScoredFill, type ScoreRange, ScoreFilter } from './catch-all-scores.tsx';
import { apiOnlyCeiling, METHODS } from './methods.ts';
import { DeferredNotice } from './deferred.tsx';
import { QuickVerify, UploadAndVerify } from './verify-quick.tsx';

const TERMINAL = (job: VerificationJob) =>
  job.verificationStage === 'completed' || job.verificationStage === 'failed';

export const JOB_COLUMNS: Array<Column<VerificationJob>> = [
  {
    header: 'List',
    cell: (job) => (
      <>
        <a href={`#/verification/${job.id}`}>{job.listName}</a>
        <div class="hint">{METHOD_LABEL[job.verificationMethod]}</div>
      </>
    ),
  },
  { header: 'Stage', cell: (job) => STAGE_LABEL[job.verificationStage] },
  { header: 'Emails', cell: (job) => num(job.totalEmails), numeric: true },
  { header: 'Result', cell: (job) => <BreakdownCell job={job} /> },
  { header: 'Started', cell: (job) => when(job.createdAt) },
];

export function VerificationScreen() {
  const lists = usePickableLists();
  const start = useAction();
  const [listId, setListId] = useState<string | undefined>(hashParam('list') ?? undefined);
  const [method, setMethod] = useState<VerificationMethod>('smtp_only');
  const list = lists.data?.data.find((l) => l.id === listId) ?? lists.data?.data[0];
  const begin = () =>
    void start.run(async () => {
      const job = await post<VerificationJob>('/api/verification/jobs', {
        listId: list!.id,
        verificationMethod: method,
      });
      location.hash = `#/verification/${job.id}`;
    });
  return (
    <section>
      <h1>Email verification</h1>
      <QuickVerify />
      <UploadAndVerify />
      <form
        class="card"
        onSubmit={(event) => {
          event.preventDefault();
          if (method !== 'api_only') begin();
        }}
        aria-label="Start a verification"
      >
        <h2>Verify a list</h2>
        {lists.data && lists.data.total === 0 ? (
          <Empty>
            You have no list to verify yet. <a href="#/lists">Create a list and import leads</a>, or upload a file
            above.
          </Empty>
        ) : (
          <>
            <ListSelect lists={lists.data?.data ?? []} value={list?.id} onPick={setListId} />
            <fieldset>
              <legend>Method</legend>
              {METHODS.map((m) => (
                <label key={m.value} class="choice">
                  <input
                    type="radio"
                    name="method"
                    value={m.value}
                    checked={method === m.value}
                    onChange={() => setMethod(m.value)}
                  />
                  <span>
                    <strong>{m.title}</strong>
                    <span class="hint">{m.text}</span>
                  </span>
                </label>
              ))}
            </fieldset>
            {method === 'api_only' ? (
              <PaidAction
                label="Start verification"
                total={`At most ${apiOnlyCeiling(list?.leadCount ?? 0)}`}
                what={`verify the addresses of ${num(list?.leadCount ?? 0)} leads with the provider`}
                onConfirm={begin}
                disabled={start.busy || !list}
              />
            ) : (
              <button type="submit" class="primary" disabled={start.busy || !list}>
                Start verification
              </button>
            )}
          </>
        )}
        <ErrorNote error={start.error} />
        {lists.error && !lists.data && <LoadFailed error={lists.error} what="your lists" onRetry={lists.reload} />}
      </form>
      <JobsSection
        path="/api/verification/jobs"
        what="verification jobs"
        columns={JOB_COLUMNS}
        testId="verification-jobs"
        empty="No verification yet: pick a list and a method above."
      />
      <CatchAllCalibration />
    </section>
  );
}

/** One row of the counts table: who gave the results (the mail servers or the provider) and how many of each. */
interface CountRow {
  by: string;
  valid: number;
  invalid: number;
  catchAll: number;
  unknown: number;
}

const countRows = (j: VerificationJob): CountRow[] => [
  {
    by: 'Mail servers',
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
  { header: 'Checked by', cell: (row) => row.by, rowHeader: true },
  { header: 'Valid', cell: (row) => num(row.valid), numeric: true },
  { header: 'Invalid', cell: (row) => num(row.invalid), numeric: true },
  { header: 'Catch-All', cell: (row) => num(row.catchAll), numeric: true },
  { header: 'Unknown', cell: (row) => num(row.unknown), numeric: true },
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
  { header: 'Emails', cell: (d) => num(d.totalEmails), numeric: true },
  { header: 'Valid', cell: (d) => num(d.validCount), numeric: true },
  { header: 'Invalid', cell: (d) => num(d.invalidCount), numeric: true },
  { header: 'Catch-All', cell: (d) => num(d.catchAllCount), numeric: true },
  { header: 'Unknown', cell: (d) => num(d.unknownCount), numeric: true },
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
      const stageChanged = next.verificationStage !== job.data?.verificationStage;
      job.setData(next);
      domains.reload();
      if (stageChanged || TERMINAL(next)) setResultsVersion((v) => v + 1);
    },
    TERMINAL,
  );
  if (!job.data)
    return job.error ? (
      <LoadFailed error={job.error} what="the verification job" onRetry={job.reload} />
    ) : (
      <Loading what="the verification job" />
    );
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
        <dd>{METHOD_LABEL[j.verificationMethod]}</dd>
        <dt>Stage</dt>
        <dd data-testid="stage">{STAGE_LABEL[j.verificationStage]}</dd>
        <dt>Coverage</dt>
        <dd data-testid="coverage">{percent(j.coveragePercentage)} of addresses have a definite answer</dd>
        {j.apiVerifiedEmails > 0 && (
          <>
            <dt>Provider</dt>
            <dd data-testid="provider-spend">
              {counted(j.apiVerifiedEmails, 'address', 'addresses')} verified for {money(j.apiCost)}
            </dd>
          </>
        )}
      </dl>
      {running && <Progress done={j.processedEmails} total={j.totalEmails} label="Verification progress" />}
      {j.deferredCount > 0 && <DeferredNotice job={j} onFinished={job.setData} />}
      <Breakdown job={j} />
      <details>
        <summary>By stage</summary>
        <DataTable
          columns={COUNT_COLUMNS}
          rows={countRows(j)}
          rowKey={(row) => row.by}
          testId="counts"
          class="counts"
          wrapClass="counts-wrap"
          phone="columns"
        />
      </details>
      {j.verificationStage === 'awaiting_decision' && <Decision jobId={jobId} onDecided={job.reload} />}
      {j.userDecision && (
        <p>
          Your decision: {DECISION_LABEL[j.userDecision]}
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
      ) : domains.error && !domains.data ? (
        <LoadFailed error={domains.error} what="the domains" onRetry={domains.reload} />
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
  if (!estimate.data)
    return estimate.error ? (
      <LoadFailed error={estimate.error} what="the cost estimate" onRetry={estimate.reload} />
    ) : (
      <Loading what="the cost estimate" />
    );
  const e = estimate.data;
  const paid = [
    ['fill_unknowns_only', `Verify the ${num(e.unknownCount)} unknown`, e.fillUnknownsCost, e.unknownCount, 'Servers that did not answer.'],
    ['fill_catchall_only', `Verify the ${num(e.catchAllCount)} catch-all`, e.fillCatchAllCost, e.catchAllCount, 'Domains that accept every address.'],
    ['fill_all_gaps', `Verify all ${num(e.totalGapCount)} gaps`, e.fillAllGapsCost, e.totalGapCount, `Coverage up to ${percent(e.projectedCoveragePercentage)}.`],
  ] as const;
  // A choice with nothing to buy is not offered, and with one kind of gap only "all gaps" would be that kind again.
  const gaps = [
    e.unknownCount > 0 && counted(e.unknownCount, 'unknown address', 'unknown addresses'),
    e.catchAllCount > 0 && counted(e.catchAllCount, 'catch-all address', 'catch-all addresses'),
  ]
    .filter(Boolean)
    .join(' and ');
  const offered = paid.filter(([decision, , , count]) => count > 0 && (decision !== 'fill_all_gaps' || (e.unknownCount > 0 && e.catchAllCount > 0)));
  return (
    <div class="card decision" data-testid="decision">
      <h2>Fill the gaps?</h2>
      <p>
        The free check left {gaps || 'no address without an answer'}. The provider checks each for {money(e.costPerEmail)}.
      </p>
      <div class="choices">
        <button type="button" disabled={action.busy} onClick={() => decide('accept_current')}>
          <span>Keep the free result</span>
          <strong class="price">free</strong>
          <span class="hint">Coverage stays at {percent(e.currentCoveragePercentage)}.</span>
        </button>
        {offered.map(([decision, label, cost, count, note]) => (
          <PaidAction
            key={decision}
            class="primary choice-button"
            label={
              <>
                <span>{label}</span>
                <strong class="price">{money(cost)}</strong>
                <span class="hint">{note}</span>
              </>
            }
            total={money(cost)}
            what={`verify ${counted(count, 'address', 'addresses')} with the provider`}
            disabled={action.busy}
            onConfirm={() => decide(decision)}
          />
        ))}
      </div>
      {e.catchAllCount > 0 && <ScoredFill estimate={e} busy={action.busy} onDecide={decide} />}
      <ErrorNote error={action.error} />
    </div>
  );
}

function SmtpCode({ row }: { row: VerificationResult }) {
  return (
    <code>
      {row.smtpCode}
      {row.enhancedCode ? ` ${row.enhancedCode}` : ''}
    </code>
  );
}

const RESULT_COLUMNS: Array<Column<VerificationResult>> = [
  { header: 'Email', cell: (r) => r.email },
  {
    header: 'Result',
    cell: (r) => (
      <>
        <Status value={r.result} />
        <div class="hint">by {r.source ? (SOURCE_LABEL[r.source] ?? words(r.source)) : '—'}</div>
        <CatchAllScore score={r.catchAllScore} reasons={r.catchAllReasons} />
      </>
    ),
  },
  {
    header: 'Evidence',
    // A provider's verdict keeps the mail server's earlier reply code: shown as the server's, never as the verdict's.
    cell: (r) =>
      r.source === 'api' ? (
        <>
          The provider: {r.reason ? words(r.reason) : r.result}
          {r.smtpCode !== null && (
            <div class="hint">
              before it, the mail server: <SmtpCode row={r} />
            </div>
          )}
        </>
      ) : (
        <>
          {r.smtpCode !== null && !r.reason?.startsWith(String(r.smtpCode)) && <SmtpCode row={r} />} {r.reason ? words(r.reason) : ''}
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
  { header: 'Attempts', cell: (r) => num(r.attempts), numeric: true },
];

/** The ready-made downloads (CONTRACT §15: `result` takes a comma list; `columns=lead` adds the lead's columns). */
const SEGMENTS = [
  ['Valid', 'Valid'],
  ['Valid + Catch-All', 'Valid,Catch-All'],
  ['Invalid', 'Invalid'],
  ['All', ''],
] as const;

export const downloadHref = (jobId: string, params: Record<string, string>) =>
  `/api/verification/jobs/${jobId}/results/download${query({ ...params, columns: 'lead' })}`;

function Downloads({ jobId, filter, scores }: { jobId: string; filter: string; scores: ScoreRange }) {
  const filtered = filter !== '' || scores.minScore !== '' || scores.maxScore !== '';
  return (
    <div class="downloads" data-testid="downloads">
      <span>Download CSV (with the leads’ names and companies):</span>
      {SEGMENTS.map(([label, result]) => (
        <a key={label} class="button" href={downloadHref(jobId, { result })} download>
          {label}
        </a>
      ))}
      {filtered && (
        <a class="button" href={downloadHref(jobId, { result: filter, ...scores })} download data-testid="download-filtered">
          As filtered below
        </a>
      )}
    </div>
  );
}

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
      <h2>Results</h2>
      <Downloads jobId={jobId} filter={filter} scores={scores} />
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
        class="results"
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
  if (!detail.data)
    return detail.error ? (
      <LoadFailed error={detail.error} what="the transcript" onRetry={detail.reload} />
    ) : (
      <Loading what="the transcript" />
    );
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
