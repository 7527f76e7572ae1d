// Importing a CSV of leads into a list: a preview where each column is mapped to a lead field (guessed by the
// service's own header rules, changeable by hand), what to do with leads already in the list, and the report.
import { useState } from 'preact/hooks';
import { post } from '../api.ts';
import { type CsvPreview, previewCsv, withHeader } from '../csv.ts';
import { counted, num } from '../format.ts';
import { type Column, DataTable } from '../table.tsx';
import type { Duplicates } from '../types.ts';
import { ErrorNote, Notice, useAction } from '../ui.tsx';
import { mapHeader } from '../../src/domain/csv-header.ts';
import { LEAD_CSV_ALIASES } from '../../src/domain/lead-csv.ts';

type LeadInputField = keyof typeof LEAD_CSV_ALIASES;

export interface ImportResult {
  created: number;
  skipped: number;
  errors: Array<{ row: number; message: string }>;
  /** CONTRACT §15; absent from services before it. */
  duplicates?: Duplicates;
}

export type OnDuplicate = 'skip' | 'update';

const FIELD_LABEL: Record<LeadInputField, string> = {
  firstName: 'First name',
  lastName: 'Last name',
  title: 'Job title',
  company: 'Company',
  companyDomain: 'Company domain',
  email: 'Email',
  networkUrl: 'Profile URL',
  workEmail: 'Work email',
  personalEmail: 'Personal email',
  phone: 'Phone',
};
const FIELDS = Object.keys(FIELD_LABEL) as LeadInputField[];

/** Each column's field, or null when it is not imported. */
export type ColumnMapping = Array<LeadInputField | null>;

/** The service's own guess for the header (the import would read exactly this without a change). */
export const guessMapping = (columns: string[]): ColumnMapping => {
  const guessed = mapHeader(columns, LEAD_CSV_ALIASES);
  return columns.map((_, i) => guessed.get(i) ?? null);
};

/**
 * Uploads the file into the list. The import route reads columns by header name only, so the mapping travels as a
 * renamed header row: each mapped column named after its field, the others a name no alias matches.
 */
export async function uploadLeads(
  listId: string,
  file: File,
  mapping: ColumnMapping,
  onDuplicate: OnDuplicate,
): Promise<ImportResult> {
  const form = new FormData();
  // Before the file: the service reads the multipart fields in order (CONTRACT §15).
  form.append('onDuplicate', onDuplicate);
  form.append('file', await withHeader(file, mapping.map((field, i) => field ?? `not_imported_${i + 1}`)));
  return post<ImportResult>(`/api/lists/${listId}/leads/import`, form);
}

/** The file picker with its preview and mapping; `onReady` hears the file and mapping to upload (or null). */
export function CsvMapper({
  onChange,
}: {
  onChange: (picked: { file: File; mapping: ColumnMapping } | null) => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [mapping, setMapping] = useState<ColumnMapping>([]);
  const pick = async (event: Event) => {
    const picked = (event.currentTarget as HTMLInputElement).files?.[0] ?? null;
    const read = picked ? previewCsv(await picked.slice(0, 64 * 1024).text()) : null;
    const guessed = read ? guessMapping(read.columns) : [];
    setFile(picked);
    setPreview(read);
    setMapping(guessed);
    onChange(picked ? { file: picked, mapping: guessed } : null);
  };
  const choose = (index: number, field: LeadInputField | null) => {
    // A field fills one column: choosing it here takes it from the column that had it.
    const next = mapping.map((f, i) => (i === index ? field : f === field ? null : f));
    setMapping(next);
    onChange(file ? { file, mapping: next } : null);
  };
  return (
    <>
      <label>
        CSV file
        <input type="file" accept=".csv,text/csv" onChange={pick} data-testid="import-file" />
      </label>
      {preview && (
        <>
          <h3>
            Preview: {counted(preview.columns.length, 'column')}, {num(mapping.filter(Boolean).length)} imported
          </h3>
          <p class="hint">
            Under each column, the lead field it fills: guessed from its name, change it if the guess is wrong, or
            choose “not imported”.
          </p>
          <DataTable
            class="preview"
            phone="columns"
            columns={preview.columns.map(
              (column, i): Column<string[]> => ({
                header: column || <em>(empty)</em>,
                cell: (row) => row[i] ?? '',
              }),
            )}
            head={
              <tr data-testid="column-mapping">
                {preview.columns.map((column, i) => (
                  <th key={i} scope="col" class={mapping[i] ? 'mapped' : 'ignored'}>
                    <select
                      aria-label={`Lead field for column ${column || i + 1}`}
                      value={mapping[i] ?? ''}
                      onChange={(event) =>
                        choose(i, ((event.currentTarget as HTMLSelectElement).value || null) as LeadInputField | null)
                      }
                    >
                      <option value="">not imported</option>
                      {FIELDS.map((field) => (
                        <option key={field} value={field}>
                          {FIELD_LABEL[field]}
                        </option>
                      ))}
                    </select>
                  </th>
                ))}
              </tr>
            }
            rows={preview.rows}
            rowKey={(_, r) => r}
          />
        </>
      )}
    </>
  );
}

/** "skip" or "update": what to do with a lead whose email or profile URL is already in the list. */
export function DuplicateChoice({ value, onPick }: { value: OnDuplicate; onPick: (value: OnDuplicate) => void }) {
  return (
    <fieldset>
      <legend>Leads already in the list (same email or profile URL)</legend>
      <label class="choice">
        <input type="radio" name="onDuplicate" checked={value === 'skip'} onChange={() => onPick('skip')} />
        Skip them
      </label>
      <label class="choice">
        <input type="radio" name="onDuplicate" checked={value === 'update'} onChange={() => onPick('update')} />
        Fill their empty fields from the file
      </label>
    </fieldset>
  );
}

const listed = (rows: number[]) =>
  rows.length > 10 ? `${rows.slice(0, 10).map(num).join(', ')} and ${num(rows.length - 10)} more` : rows.map(num).join(', ');

/** What an import did: created, refused rows with their reason, and the duplicates skipped or filled. */
export function ImportReport({ result, onDuplicate }: { result: ImportResult; onDuplicate: OnDuplicate }) {
  const duplicates = result.duplicates;
  return (
    <div data-testid="import-report">
      <Notice>
        Imported {counted(result.created, 'lead')}; {counted(result.skipped, 'row')} refused
        {duplicates
          ? `; ${counted(duplicates.count, 'duplicate')} ${onDuplicate === 'update' ? 'filled in' : 'skipped'}`
          : ''}
        .
      </Notice>
      {duplicates && duplicates.count > 0 && (
        <p class="hint" data-testid="duplicates">
          Already in the list: {duplicates.rows.length === 1 ? 'row' : 'rows'} {listed(duplicates.rows)} of the file.
        </p>
      )}
      {result.errors.length > 0 && (
        <ul class="refused">
          {result.errors.map((e) => (
            <li key={e.row}>
              Row {num(e.row)}: {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export const NOTHING_MAPPED =
  'No column is imported: choose under at least one column which lead field it fills (for example Email or Profile URL).';

/** The list page's import card. */
export function Import({ listId, onImported }: { listId: string; onImported: () => void }) {
  const [picked, setPicked] = useState<{ file: File; mapping: ColumnMapping } | null>(null);
  const [onDuplicate, setOnDuplicate] = useState<OnDuplicate>('skip');
  const [result, setResult] = useState<ImportResult | null>(null);
  const action = useAction();
  const nothingMapped = picked !== null && picked.mapping.every((field) => field === null);
  const upload = () =>
    void action.run(async () => {
      setResult(await uploadLeads(listId, picked!.file, picked!.mapping, onDuplicate));
      onImported();
    });
  return (
    <details class="card" open={!!picked}>
      <summary>Import leads from a CSV</summary>
      <p class="hint">
        One lead per row, with a header row. Columns named like the lead fields are recognized (first name, last name,
        title, company, company domain, email, profile URL, work email, personal email, phone); you can map the others
        by hand. Rows that cannot be read are skipped and listed below.
      </p>
      <CsvMapper
        onChange={(next) => {
          setPicked(next);
          setResult(null);
          action.setError(null);
        }}
      />
      {picked && (
        <>
          <DuplicateChoice value={onDuplicate} onPick={setOnDuplicate} />
          {nothingMapped && (
            <p class="error" role="alert" data-testid="nothing-mapped">
              {NOTHING_MAPPED}
            </p>
          )}
          <button type="button" class="primary" onClick={upload} disabled={action.busy || nothingMapped}>
            {action.busy ? 'Importing…' : `Import ${picked.file.name}`}
          </button>
        </>
      )}
      <ErrorNote error={action.error} />
      {result && <ImportReport result={result} onDuplicate={onDuplicate} />}
    </details>
  );
}
