// One answer per verification job: how many addresses are Valid, Invalid, Catch-All and Unknown in the end,
// whichever stage (mail server or provider) decided them, with a bar chart the dashboard draws itself (SVG).
import { num, share } from './format.ts';
import type { VerificationJob } from './types.ts';

type FinalCounts = VerificationJob['finalCounts'];

const PARTS = [
  ['valid', 'Valid', '#17753a'],
  ['invalid', 'Invalid', '#b42318'],
  ['catchAll', 'Catch-All', '#c98a00'],
  ['unknown', 'Unknown', '#8a94a6'],
] as const;

/** The four counts as one horizontal bar, each part as wide as its share. */
function Bar({ counts, total, height = 18 }: { counts: FinalCounts; total: number; height?: number }) {
  let x = 0;
  const summary = PARTS.map(([key, label]) => `${label} ${num(counts[key])}`).join(', ');
  return (
    <svg
      class="breakdown-bar"
      viewBox={`0 0 1000 ${height}`}
      preserveAspectRatio="none"
      height={height}
      role="img"
      aria-label={summary}
    >
      <rect x="0" y="0" width="1000" height={height} fill="#eef1f6" />
      {total > 0 &&
        PARTS.map(([key, label, colour]) => {
          const width = (counts[key] / total) * 1000;
          const part = (
            <rect key={key} x={x} y="0" width={width} height={height} fill={colour}>
              <title>{`${label}: ${num(counts[key])} (${share(counts[key], total)})`}</title>
            </rect>
          );
          x += width;
          return part;
        })}
    </svg>
  );
}

/** The job page's and the list page's breakdown: the bar and a legend with each count and its share. */
export function Breakdown({ job }: { job: VerificationJob }) {
  const counts = job.finalCounts;
  const decided = counts.valid + counts.invalid + counts.catchAll + counts.unknown;
  const total = Math.max(job.totalEmails, decided);
  return (
    <figure class="breakdown" data-testid="breakdown">
      <figcaption>
        Final result of {num(total)} addresses
        {decided < total ? ` (${num(total - decided)} not checked yet)` : ''}
      </figcaption>
      <Bar counts={counts} total={total} />
      <ul class="legend">
        {PARTS.map(([key, label, colour]) => (
          <li key={key} data-result={label}>
            <svg width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" rx="2" fill={colour} />
            </svg>
            <span>{label}</span> <strong>{num(counts[key])}</strong>{' '}
            <span class="hint">{share(counts[key], total)}</span>
          </li>
        ))}
      </ul>
    </figure>
  );
}

/** A jobs table's cell: a small bar and the share that matters most, the valid one. */
export function BreakdownCell({ job }: { job: VerificationJob }) {
  const counts = job.finalCounts;
  const total = Math.max(job.totalEmails, 1);
  return (
    <div class="breakdown-cell" data-testid="breakdown-cell">
      <Bar counts={counts} total={total} height={10} />
      <span class="hint">
        {num(counts.valid)} valid ({share(counts.valid, total)}) · {num(counts.invalid)} invalid ·{' '}
        {num(counts.catchAll)} catch-all · {num(counts.unknown)} unknown
      </span>
    </div>
  );
}
