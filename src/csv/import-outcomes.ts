import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { mapHeader, rowToObject } from '../domain/csv-header.ts';
import { checkOutcome, latestPerAddress, type OutcomeRecord } from '../domain/outcome-input.ts';
import { ApiError } from '../errors.ts';
import { upsertOutcomes } from '../db/repos/outcomes.ts';
import { readCsvRecords, uploadError } from './read.ts';

const BATCH = 1000;
/** Data rows one import may hold: the answer lists every rejected row, so its size stays bounded too. */
export const MAX_OUTCOME_ROWS = 100_000;
/** Upload size limit of an outcomes CSV (the multipart reader answers 413 beyond it). */
export const MAX_OUTCOME_FILE_BYTES = 10 * 1024 * 1024;

const OUTCOME_CSV_ALIASES = {
  email: ['email', 'email_address', 'address'],
  outcome: ['outcome', 'status', 'result'],
  bounceType: ['bounce_type', 'bounce'],
  at: ['at', 'timestamp', 'date', 'sent_at'],
} as const;

export interface OutcomeImportResult {
  accepted: number;
  rejected: Array<{ row: number; reason: string }>;
}

/**
 * Imports an outcomes CSV (`email,outcome[,bounce_type,at]`, header row first) into the organization's outcomes
 * inside one transaction: a failure part-way (413, a broken upload, a malformed file) stores nothing. Rows that
 * cannot be used are skipped and reported by data row (1 = the first row after the header). The whole upload is
 * read and checked first, as the lead import's is, so a connection is held while the outcomes are stored, not for
 * as long as the client takes to send them, and a refused file never reaches the database.
 */
export async function importOutcomeCsv(em: EntityManager, organizationId: string, file: Readable, now: Date): Promise<OutcomeImportResult> {
  const { records, rejected } = await readOutcomes(file, now);
  await em.transactional(async (tx) => {
    for (let start = 0; start < records.length; start += BATCH) await upsertOutcomes(tx, organizationId, latestPerAddress(records.slice(start, start + BATCH)));
  });
  return { accepted: records.length, rejected };
}

async function readOutcomes(file: Readable, now: Date): Promise<{ records: OutcomeRecord[]; rejected: OutcomeImportResult['rejected'] }> {
  const records: OutcomeRecord[] = [];
  const rejected: OutcomeImportResult['rejected'] = [];
  let mapping: Map<number, keyof typeof OUTCOME_CSV_ALIASES> | undefined;
  let row = 0;
  try {
    for await (const record of readCsvRecords(file)) {
      if (!mapping) {
        mapping = mapHeader(record, OUTCOME_CSV_ALIASES);
        const fields = new Set(mapping.values());
        if (!fields.has('email') || !fields.has('outcome')) {
          throw new ApiError('unprocessable', 'The header row must name the columns email and outcome (and optionally bounce_type and at)', {
            reason: 'unrecognized_headers',
          });
        }
        continue;
      }
      row++;
      if (row > MAX_OUTCOME_ROWS) {
        throw new ApiError('unprocessable', `The file has more than ${MAX_OUTCOME_ROWS} data rows`, { reason: 'too_many_rows', maxRows: MAX_OUTCOME_ROWS });
      }
      const cells = rowToObject(record, mapping);
      const checked = checkOutcome({ email: cells.email ?? '', outcome: cells.outcome ?? '', bounceType: cells.bounceType, at: cells.at }, now);
      if ('reason' in checked) rejected.push({ row, reason: checked.reason });
      else records.push(checked.record);
    }
  } catch (err) {
    throw uploadError(err);
  }
  if (!mapping) throw new ApiError('unprocessable', 'The file has no header row', { reason: 'empty' });
  if (row === 0) throw new ApiError('unprocessable', 'The file has no data rows', { reason: 'no_data_rows' });
  return { records, rejected };
}
