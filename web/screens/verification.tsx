import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { get, type Page, post, query } from '../api.ts';
import { useSession } from '../session.ts';
import type {
  DomainStat,
  Estimate,
  LeadList,
  Transcript,
  VerificationJob,
  VerificationResult,
} from '../types.ts';
import {
  Empty,
  ErrorNote,
  hashParam,
  Loading,
  Notice,
  Pager,
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

export function VerificationScreen() {
  const lists = useLoad(() => get<Page<LeadList>>('/api/lists?limit=100'), []);
  const [page, setPage] = useState(1);
  const jobs = useLoad(
    () => get<Page<VerificationJob>>(`/api/verification/jobs${query({ page, limit: 20 })}`),
    [page],
  );
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
            <label>
              List
              <select name="listId" required defaultValue={preselected}>
                {lists.data?.data.map((list) => (
                  <option key={list.id} value={list.id}>
                    {list.name} ({list.leadCount} leads)
                  </option>
                ))}
              </select>
            </label>
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
      {!jobs.data ? (
        <Loading what="verification jobs" />
      ) : jobs.data.total === 0 ? (
        <Empty>No verification yet: pick a list and a method above.</Empty>
      ) : (
        <>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>List</th>
                  <th>Method</th>
                  <th>Stage</th>
                  <th>Emails</th>
                  <th>Coverage</th>
                  <th>Started</th>
                </tr>
              </thead>
              <tbody>
                {jobs.data.data.map((job) => (
                  <tr key={job.id}>
                    <td>
                      <a href={`#/verification/${job.id}`}>{job.listName}</a>
                    </td>
                    <td>{words(job.verificationMethod)}</td>
                    <td>{words(job.verificationStage)}</td>
                    <td class="num">{job.totalEmails}</td>
                    <td class="num">{percent(job.coveragePercentage)}</td>
                    <td>{when(job.createdAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={jobs.data} onPage={setPage} />
        </>
      )}
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
      {j.verificationStage === 'failed' && (
        <p class="error" role="alert">
          The job failed: {j.failureReason ?? 'no reason was recorded.'}
        </p>
      )}
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
      <div class="table-wrap counts-wrap">
        <table class="counts" data-testid="counts">
          <thead>
            <tr>
              <th />
              <th>Valid</th>
              <th>Invalid</th>
              <th>Catch-all</th>
              <th>Unknown</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>SMTP</th>
              <td>{j.smtpValidCount}</td>
              <td>{j.smtpInvalidCount}</td>
              <td>{j.smtpCatchAllCount}</td>
              <td>{j.smtpUnknownCount}</td>
            </tr>
            {(j.apiVerifiedEmails > 0 || j.verificationStage === 'api_verifying') && (
              <tr>
                <th>Provider</th>
                <td>{j.apiValidCount}</td>
                <td>{j.apiInvalidCount}</td>
                <td>{j.apiCatchAllCount}</td>
                <td>{j.apiUnknownCount}</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {j.verificationStage === 'awaiting_decision' && <Decision jobId={jobId} onDecided={job.reload} />}
      {j.userDecision && <p>Your decision: {words(j.userDecision)}.</p>}
      <h2>By domain</h2>
      {domains.data && domains.data.domainStats.length > 0 ? (
        <div class="table-wrap">
          <table data-testid="domains">
            <thead>
              <tr>
                <th>Domain</th>
                <th>Emails</th>
                <th>Valid</th>
                <th>Invalid</th>
                <th>Catch-all</th>
                <th>Unknown</th>
              </tr>
            </thead>
            <tbody>
              {domains.data.domainStats.map((d) => (
                <tr key={d.domain}>
                  <td>
                    {d.domain}
                    {d.isCatchAll && <span class="tag">accepts every address</span>}
                  </td>
                  <td class="num">{d.totalEmails}</td>
                  <td class="num">{d.validCount}</td>
                  <td class="num">{d.invalidCount}</td>
                  <td class="num">{d.catchAllCount}</td>
                  <td class="num">{d.unknownCount}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
  const decide = (decision: string) =>
    void action.run(async () => {
      await post(`/api/verification/jobs/${jobId}/decision`, { decision });
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
      <ErrorNote error={action.error} />
    </div>
  );
}

function Results({ jobId, version }: { jobId: string; version: number }) {
  const [page, setPage] = useState(1);
  const [filter, setFilter] = useState('');
  const results = useLoad(
    () =>
      get<Page<VerificationResult>>(
        `/api/verification/jobs/${jobId}/results${query({ page, limit: 25, result: filter })}`,
      ),
    [jobId, page, filter, version],
  );
  const [open, setOpen] = useState<string | null>(null);
  return (
    <>
      <h2>
        Results{' '}
        <a class="button" href={`/api/verification/jobs/${jobId}/results/download`} download>
          Download CSV
        </a>
      </h2>
      <label class="inline">
        Show
        <select
          value={filter}
          onChange={(event) => {
            setPage(1);
            setFilter((event.currentTarget as HTMLSelectElement).value);
          }}
        >
          <option value="">All results</option>
          {['Valid', 'Invalid', 'Catch-All', 'Unknown'].map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <ErrorNote error={results.error} />
      {!results.data ? (
        <Loading what="results" />
      ) : results.data.total === 0 ? (
        <Empty>No result yet: addresses appear here as they are checked.</Empty>
      ) : (
        <>
          <div class="table-wrap">
            <table data-testid="results">
              <thead>
                <tr>
                  <th>Email</th>
                  <th>Result</th>
                  <th>Evidence</th>
                  <th>Mail server</th>
                  <th>Attempts</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {results.data.data.map((r) => (
                  <Fragment key={r.email}>
                    <tr>
                      <td>{r.email}</td>
                      <td>
                        <Status value={r.result} />
                        <div class="hint">by {r.source ?? '—'}</div>
                      </td>
                      <td>
                        {r.smtpCode !== null && !r.reason?.startsWith(String(r.smtpCode)) && (
                          <code>
                            {r.smtpCode}
                            {r.enhancedCode ? ` ${r.enhancedCode}` : ''}
                          </code>
                        )}{' '}
                        {r.reason ? words(r.reason) : ''}
                      </td>
                      <td>
                        {r.mxHost ?? '—'}
                        {r.mxProvider && <div class="hint">{r.mxProvider}</div>}
                      </td>
                      <td class="num">{r.attempts}</td>
                      <td>
                        {r.attempts > 0 && (
                          <button
                            type="button"
                            aria-expanded={open === r.email}
                            onClick={() => setOpen(open === r.email ? null : r.email)}
                          >
                            {open === r.email ? 'Hide transcript' : 'Transcript'}
                          </button>
                        )}
                      </td>
                    </tr>
                    {open === r.email && (
                      <tr>
                        <td colSpan={6}>
                          <TranscriptView jobId={jobId} email={r.email} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={results.data} onPage={setPage} />
        </>
      )}
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
