import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { addNewLeads, lockListForAdding } from '../db/repos/leads.ts';
import type { OnDuplicate } from '../domain/lead-duplicates.ts';
import type { LeadSource } from '../domain/lead.ts';
import { mapHeader, rowToObject } from '../domain/csv-header.ts';
import { LEAD_CSV_ALIASES } from '../domain/lead-csv.ts';
import { ApiError } from '../errors.ts';
import { type LeadInput, LeadInputSchema } from '../domain/lead-input.ts';
import { readCsvRecords, uploadError } from './read.ts';

const BATCH = 1000;
const MAX_REPORTED_ERRORS = 100;

export interface LeadImportResult {
  created: number;
  skipped: number;
  errors: Array<{ row: number; message: string }>;
  /** Rows whose lead the list held already (or an earlier row did): 1-based data rows, the header not counted. */
  duplicates: { count: number; rows: number[] };
}

/**
 * Streams a lead CSV into a list inside one transaction: a failure part-way (413, broken upload) stores
 * nothing, so a retry never doubles rows. Rows that fail validation are skipped and reported by row number.
 */
export async function importLeadCsv(
  em: EntityManager,
  target: { organizationId: string; listId: string; source: LeadSource; onDuplicate: OnDuplicate },
  file: Readable,
  maxRows: number,
): Promise<LeadImportResult> {
  return em.transactional(async (tx) => {
    await lockListForAdding(tx, target.listId);
    const result: LeadImportResult = { created: 0, skipped: 0, errors: [], duplicates: { count: 0, rows: [] } };
    let mapping: Map<number, keyof typeof LEAD_CSV_ALIASES> | undefined;
    let batch: LeadInput[] = [];
    // The data row (1-based, header not counted) of each lead in the batch.
    let batchRows: number[] = [];
    let rowNumber = 1;
    const flush = async () => {
      if (batch.length === 0) return;
      // Earlier batches are in the list already (same transaction), so the lookup finds them too.
      const { ids, duplicates } = await addNewLeads(tx, target, batch);
      result.created += ids.length;
      for (const index of duplicates) result.duplicates.rows.push(batchRows[index]!);
      result.duplicates.count = result.duplicates.rows.length;
      batch = [];
      batchRows = [];
    };
    try {
      for await (const record of readCsvRecords(file)) {
        if (!mapping) {
          mapping = mapHeader(record, LEAD_CSV_ALIASES);
          if (mapping.size === 0) {
            throw new ApiError('unprocessable', 'No recognized column in the header row', {
              reason: 'unrecognized_headers',
              accepted: Object.values(LEAD_CSV_ALIASES).flat(),
            });
          }
          continue;
        }
        rowNumber++;
        if (rowNumber - 1 > maxRows) {
          throw new ApiError('unprocessable', `The file has more than ${maxRows} data rows`, { reason: 'too_many_rows', maxRows });
        }
        const raw = rowToObject(record, mapping);
        const parsed = LeadInputSchema.safeParse(raw);
        if (!parsed.success || Object.keys(raw).length === 0) {
          result.skipped++;
          if (result.errors.length < MAX_REPORTED_ERRORS) {
            const message = parsed.success ? 'empty row' : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
            result.errors.push({ row: rowNumber, message });
          }
          continue;
        }
        batch.push(parsed.data);
        batchRows.push(rowNumber - 1);
        if (batch.length >= BATCH) await flush();
      }
    } catch (err) {
      throw uploadError(err);
    }
    if (!mapping) throw new ApiError('unprocessable', 'The file has no header row', { reason: 'empty' });
    await flush();
    if (result.created === 0 && result.skipped === 0 && result.duplicates.count === 0) {
      throw new ApiError('unprocessable', 'The file has no data rows', { reason: 'no_data_rows' });
    }
    return result;
  });
}
