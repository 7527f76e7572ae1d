// The two shortest ways to a verdict: one address in a box (`POST /api/verification/verify`, the external verify
// route's check behind the session), and a file dropped in that becomes a list, is imported and verified.
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { csvLines } from '../csv.ts';
import { METHOD_LABEL, num, SOURCE_LABEL, when, words } from '../format.ts';
import type { LeadList, SingleCheck, VerificationJob } from '../types.ts';
import { ErrorNote, FieldError, invalidField, PaidAction, Status, useAction } from '../ui.tsx';
import { type ColumnMapping, CsvMapper, NOTHING_MAPPED, uploadLeads } from './import.tsx';
import { apiOnlyCeiling, METHODS } from './methods.ts';
import type { VerificationMethod } from '../../src/domain/verification.ts';

export function QuickVerify() {
  const action = useAction();
  const [check, setCheck] = useState<SingleCheck | null>(null);
  const submit = (event: Event) => {
    event.preventDefault();
    const email = String(new FormData(event.currentTarget as HTMLFormElement).get('email') ?? '').trim();
    void action.run(async () => {
      setCheck(null);
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw invalidField('email', 'is not an email address (name@company.com)');
      setCheck(await post<SingleCheck>('/api/verification/verify', { email }));
    });
  };
  return (
    <form class="card" onSubmit={submit} aria-label="Verify one address" noValidate>
      <h2>Verify one address</h2>
      <div class="inline-fields">
        <label>
          Email address
          <input name="email" type="email" required placeholder="jane.doe@acme.com" autoComplete="off" />
          <FieldError error={action.error} field="email" />
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          {action.busy ? 'Checking…' : 'Verify (free)'}
        </button>
      </div>
      <ErrorNote error={action.error} fields={['email']} />
      {check && (
        <div class="single-check" data-testid="single-check" role="status">
          <p>
            <strong>{check.email}</strong> <Status value={check.result} />
            {check.cached && <span class="hint"> (from a check at {when(check.checkedAt)})</span>}
          </p>
          <p class="hint">
            {check.reason ? words(check.reason) : SOURCE_LABEL.smtp}
            {check.mxHost ? ` · mail server ${check.mxHost}` : ''}
            {check.isCatchAll ? ' · the domain accepts every address' : ''}
          </p>
          {check.retryAfterSeconds !== null && (
            <p class="hint">The answer may change: ask again in {num(check.retryAfterSeconds)} seconds.</p>
          )}
        </div>
      )}
    </form>
  );
}

const baseName = (file: File) => file.name.replace(/\.[^.]+$/, '') || 'Uploaded file';

/** How many data rows the file has (lines after the header), for the price of a paid method before the upload. */
async function rowsIn(file: File): Promise<number> {
  return Math.max(0, csvLines(await file.text()).length - 1);
}

/** "Upload a file and verify": a new list named after the file, the import, the job, then the job's page. */
export function UploadAndVerify() {
  const action = useAction();
  const [picked, setPicked] = useState<{ file: File; mapping: ColumnMapping; rows: number } | null>(null);
  const [method, setMethod] = useState<VerificationMethod>('smtp_only');
  const [step, setStep] = useState('');
  const nothingMapped = picked !== null && picked.mapping.every((field) => field === null);
  const noEmail = picked !== null && !nothingMapped && !picked.mapping.includes('email');
  const run = () =>
    void action.run(async () => {
      const { file, mapping } = picked!;
      setStep('Creating the list…');
      const list = await post<LeadList>('/api/lists', { name: baseName(file) });
      setStep('Importing the file…');
      await uploadLeads(list.id, file, mapping, 'skip');
      setStep('Starting the verification…');
      try {
        const job = await post<VerificationJob>('/api/verification/jobs', { listId: list.id, verificationMethod: method });
        location.hash = `#/verification/${job.id}`;
      } catch (failure) {
        // The list and its leads stay: the user finds them there (and why the verification could not start here).
        setStep('');
        throw Object.assign(failure as Error, {
          message: `${(failure as Error).message} The leads are in the new list “${list.name}”.`,
        });
      }
    });
  return (
    <div class="card" data-testid="upload-verify">
      <h2>Upload a file and verify</h2>
      <p class="hint">A CSV with an email column: it becomes a new list named after the file, then is verified.</p>
      <CsvMapper
        onChange={(next) => {
          action.setError(null);
          if (!next) return setPicked(null);
          void rowsIn(next.file).then((rows) => setPicked({ ...next, rows }));
        }}
      />
      {picked && (
        <>
          <label>
            Method
            <select
              value={method}
              onChange={(event) => setMethod((event.currentTarget as HTMLSelectElement).value as VerificationMethod)}
            >
              {METHODS.map((m) => (
                <option key={m.value} value={m.value}>
                  {METHOD_LABEL[m.value]}
                </option>
              ))}
            </select>
          </label>
          {nothingMapped && (
            <p class="error" role="alert">
              {NOTHING_MAPPED}
            </p>
          )}
          {noEmail && (
            <p class="error" role="alert">
              No column is mapped to Email: choose the column that holds the addresses to verify.
            </p>
          )}
          {method === 'api_only' ? (
            <PaidAction
              label={`Upload ${picked.file.name} and verify`}
              total={`At most ${apiOnlyCeiling(picked.rows)}`}
              what={`verify the addresses of ${num(picked.rows)} rows with the provider`}
              onConfirm={run}
              disabled={action.busy || nothingMapped || noEmail}
            />
          ) : (
            <button type="button" class="primary" onClick={run} disabled={action.busy || nothingMapped || noEmail}>
              Upload {picked.file.name} and verify
            </button>
          )}
          {action.busy && step && <p role="status">{step}</p>}
        </>
      )}
      <ErrorNote error={action.error} />
    </div>
  );
}
