// Catch-all truth on the dashboard (CONTRACT §12): a Catch-All result's score and reasons in words, the score
// filter on results, the score-bounded fill on the decision card, and the calibration with its outcomes import.
import { useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import { DataTable, type Column } from '../table.tsx';
import type { Calibration, CalibrationBand, Estimate, OutcomeImport } from '../types.ts';
import { counted, num, percent } from '../format.ts';
import { ErrorNote, LoadFailed, Loading, Notice, PaidAction, useAction, useLoad } from '../ui.tsx';
import { CATCH_ALL_MAX_SCORE, CATCH_ALL_SCORES, type CatchAllReason } from '../../src/domain/catch-all.ts';
import { API_PRICE_MICROS } from '../../src/domain/verification.ts';

/** What each reason code means, as a person reads it. */
const REASON_TEXT: Record<CatchAllReason, string> = {
  domain_catch_all: 'the domain accepts every address, so its server could not say',
  provider_accepts_all: 'the mailbox provider accepts every address by policy',
  directory_absent: 'the Microsoft directory does not list this address',
  pattern_match: "matches the domain's usual address pattern",
  pattern_mismatch: "does not match the domain's usual address pattern",
  role_account: 'a role address (such as info@ or sales@), read by a team rather than a person',
  random_looking: 'the name before the @ looks random',
  found_by_provider: 'an enrichment provider found this address for a person',
  prior_delivered: 'an earlier send to this address was delivered',
  prior_bounced: 'an earlier send to this address bounced',
};

export const reasonText = (reason: string) => REASON_TEXT[reason as CatchAllReason] ?? reason.replaceAll('_', ' ');

/** Dollars from micro-dollars, exact: integer arithmetic, at least 2 decimals and as many as the amount needs. */
export function moneyFromMicros(micros: number): string {
  const whole = Math.floor(micros / 1_000_000);
  const fraction = String(micros % 1_000_000).padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `$${whole}.${fraction}`;
}

/** A Catch-All result's score as a small badge ("7/10") and its reasons as a readable list. */
export function CatchAllScore({ score, reasons }: { score: number | null; reasons: readonly string[] }) {
  if (score === null) return null;
  return (
    <div class="catch-all-score">
      <span class="score" title={`Catch-all score ${score} of ${CATCH_ALL_MAX_SCORE}: higher is more likely deliverable`}>
        {score}/{CATCH_ALL_MAX_SCORE}
      </span>
      {reasons.length > 0 && (
        <ul class="reasons">
          {reasons.map((reason) => (
            <li key={reason}>{reasonText(reason)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export interface ScoreRange {
  minScore: string;
  maxScore: string;
}

/** One option per catch-all score, for the filter's bounds and the fill's bound (fresh elements for each select). */
const scoreOptions = () =>
  CATCH_ALL_SCORES.map((score) => (
    <option key={score} value={String(score)}>
      {score}
    </option>
  ));

function ScoreSelect({ label, value, onPick }: { label: string; value: string; onPick: (value: string) => void }) {
  return (
    <label class="inline">
      {label}
      <select value={value} onChange={(event) => onPick((event.currentTarget as HTMLSelectElement).value)}>
        <option value="">any</option>
        {scoreOptions()}
      </select>
    </label>
  );
}

/** The catch-all score bounds of the results (and of their CSV download); an empty bound is no bound. */
export function ScoreFilter({ range, onChange }: { range: ScoreRange; onChange: (range: ScoreRange) => void }) {
  return (
    <fieldset class="score-filter">
      <legend>Catch-all score</legend>
      <ScoreSelect label="from" value={range.minScore} onPick={(minScore) => onChange({ ...range, minScore })} />
      <ScoreSelect label="to" value={range.maxScore} onPick={(maxScore) => onChange({ ...range, maxScore })} />
    </fieldset>
  );
}

/**
 * The decision card's score-bounded fill: the Catch-All results by score, and "fill only those scored 0–N"
 * priced live from the same counts the service charges for (optionally with the unknowns).
 */
export function ScoredFill({
  estimate,
  busy,
  onDecide,
}: {
  estimate: Estimate;
  busy: boolean;
  onDecide: (decision: 'fill_catchall_only' | 'fill_all_gaps', catchAllMaxScore: number) => void;
}) {
  const [maxScore, setMaxScore] = useState(4);
  const [withUnknowns, setWithUnknowns] = useState(false);
  const bands = estimate.catchAllByScore;
  const scored = bands.reduce((sum, band) => sum + band.count, 0);
  if (scored === 0) return <p class="hint">The catch-all addresses have no score yet, so they can only be filled all together.</p>;
  const chosen = bands.filter((band) => band.score <= maxScore).reduce((sum, band) => sum + band.count, 0);
  const unknowns = withUnknowns ? estimate.unknownCount : 0;
  const cost = moneyFromMicros((chosen + unknowns) * API_PRICE_MICROS);
  const range = maxScore === 0 ? '0' : `0–${maxScore}`;
  const label = `Fill the ${counted(chosen, 'catch-all')} scored ${range}${unknowns > 0 ? ` and the ${num(unknowns)} unknown` : ''}: ${cost}`;
  return (
    <div class="scored-fill" data-testid="scored-fill">
      <h3>Pay only for the doubtful catch-alls</h3>
      <p class="hint">
        Each catch-all address has a score from 0 (likely to bounce) to 10 (likely deliverable). Filling only the low
        scores buys an answer where it is most needed.
      </p>
      <DataTable
        columns={BAND_COLUMNS}
        rows={bands}
        rowKey={(band) => band.score}
        testId="catch-all-bands"
        class="bands"
        phone="columns"
      />
      <label class="inline">
        Fill catch-alls scored 0 to
        <select value={String(maxScore)} onChange={(event) => setMaxScore(Number((event.currentTarget as HTMLSelectElement).value))}>
          {scoreOptions()}
        </select>
      </label>
      {estimate.unknownCount > 0 && (
        <label class="inline">
          <input type="checkbox" checked={withUnknowns} onChange={(event) => setWithUnknowns((event.currentTarget as HTMLInputElement).checked)} />
          also the {estimate.unknownCount} unknown
        </label>
      )}
      {chosen + unknowns === 0 ? (
        // Nothing to buy: said in words, not as a $0.00 button that cannot be pressed.
        <p class="hint" data-testid="scored-fill-empty">
          No catch-all address is scored {range}: pick a higher score to include some.
        </p>
      ) : (
        <PaidAction
          label={label}
          total={cost}
          what={`verify ${counted(chosen + unknowns, 'address', 'addresses')} with the provider`}
          disabled={busy}
          onConfirm={() => onDecide(withUnknowns ? 'fill_all_gaps' : 'fill_catchall_only', maxScore)}
        />
      )}
    </div>
  );
}

const BAND_COLUMNS: Array<Column<{ score: number; count: number }>> = [
  { header: 'Score', cell: (band) => band.score, rowHeader: true },
  { header: 'Catch-alls', cell: (band) => num(band.count), numeric: true },
];

const rate = (band: CalibrationBand) => (band.bounceRate === null ? '—' : percent(band.bounceRate * 100));

const CALIBRATION_COLUMNS: Array<Column<CalibrationBand>> = [
  { header: 'Score', cell: (band) => band.score, rowHeader: true },
  { header: 'Results', cell: (band) => num(band.results), numeric: true },
  { header: 'With outcome', cell: (band) => num(band.withOutcome), numeric: true },
  { header: 'Bounced', cell: (band) => num(band.bounced), numeric: true },
  { header: 'Bounce rate', cell: rate, numeric: true },
];

/** How the scores held up against what your sends showed, and the import of send outcomes that feeds it. */
export function CatchAllCalibration() {
  const calibration = useLoad(() => get<Calibration>('/api/verification/catch-all-calibration'), []);
  return (
    <section aria-labelledby="calibration-title">
      <h2 id="calibration-title">How catch-all scores held up</h2>
      <p class="hint">
        For each score, your latest catch-all results, how many of them have a reported send outcome (delivered or hard
        bounce) from after the check, and how many of those bounced.
      </p>
      {calibration.error && !calibration.data && (
        <LoadFailed error={calibration.error} what="the calibration" onRetry={calibration.reload} />
      )}
      {calibration.data ? (
        <CalibrationBands bands={calibration.data.bands} />
      ) : (
        !calibration.error && <Loading what="the calibration" />
      )}
      <OutcomesImport onImported={calibration.reload} />
    </section>
  );
}

/** The scores your results hold, each with its outcomes; what is missing said in words rather than as rows of zeros. */
function CalibrationBands({ bands }: { bands: readonly CalibrationBand[] }) {
  const held = bands.filter((band) => band.results > 0);
  return (
    <>
      <DataTable
        columns={CALIBRATION_COLUMNS}
        rows={held}
        rowKey={(band) => band.score}
        testId="calibration"
        class="calibration"
        empty={
          <span data-testid="calibration-empty">
            No catch-all results yet: once a verification job finds addresses on domains that accept every address, each
            score they get shows here, with the bounces your sends report.
          </span>
        }
      />
      {held.length > 0 && held.every((band) => band.withOutcome === 0) && (
        <p class="hint" data-testid="calibration-no-outcomes">
          No send outcome is reported for these results yet: import your sends' outcomes below to see how each score held
          up.
        </p>
      )}
    </>
  );
}

function OutcomesImport({ onImported }: { onImported: () => void }) {
  const action = useAction();
  const [report, setReport] = useState<OutcomeImport | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('file') as HTMLInputElement).files?.[0];
    setReport(null);
    void action.run(async () => {
      if (!file) throw new Error('Choose a CSV file of send outcomes first.');
      const body = new FormData();
      body.append('file', file);
      setReport(await post<OutcomeImport>('/api/outcomes/import', body));
      form.reset();
      onImported();
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Import send outcomes">
      <h3>Import send outcomes (CSV)</h3>
      <p class="hint">
        Columns <code>email,outcome</code> and optionally <code>bounce_type,at</code>, with a header row; outcome is
        delivered or bounced, bounce type hard or soft, at a time such as 2026-11-20T12:00:00Z.
      </p>
      <label>
        CSV file
        <input type="file" name="file" accept=".csv,text/csv" />
      </label>
      <button type="submit" disabled={action.busy}>
        Import send outcomes
      </button>
      <ErrorNote error={action.error} />
      {report && (
        <div data-testid="outcome-import">
          <Notice>
            {counted(report.accepted, 'outcome')} accepted
            {report.rejected.length > 0 ? `, ${counted(report.rejected.length, 'row')} not used:` : '.'}
          </Notice>
          {report.rejected.length > 0 && (
            <ul class="rejected">
              {report.rejected.map((r) => (
                <li key={r.row}>
                  Row {r.row}: {r.reason}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}
