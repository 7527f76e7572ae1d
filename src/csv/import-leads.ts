import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { insertLeads } from '../db/repos/leads.ts';
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
}

/**
 * Streams a lead CSV into a list inside one transaction: a failure part-way (413, broken upload) stores
 * nothing, so a retry never doubles rows. Rows that fail validation are skipped and reported by row number.
 */
export async function importLeadCsv(
  em: EntityManager,
  organizationId: string,
  listId: string,
  file: Readable,
  maxRows: number,
): Promise<LeadImportResult> {
  return em.transactional(async (tx) => {
    const result: LeadImportResult = { created: 0, skipped: 0, errors: [] };
    let mapping: Map<number, keyof typeof LEAD_CSV_ALIASES> | undefined;
    let batch: LeadInput[] = [];
    let rowNumber = 1;
    const flush = async () => {
      if (batch.length === 0) return;
      await insertLeads(tx, organizationId, listId, batch, 'import');
      result.created += batch.length;
      batch = [];
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
        if (batch.length >= BATCH) await flush();
      }
    } catch (err) {
      throw uploadError(err);
    }
    if (!mapping) throw new ApiError('unprocessable', 'The file has no header row', { reason: 'empty' });
    await flush();
    if (result.created === 0 && result.skipped === 0) {
      throw new ApiError('unprocessable', 'The file has no data rows', { reason: 'no_data_rows' });
    }
    return result;
  });
}
