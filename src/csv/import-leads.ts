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

const MAX_REPORTED_ERRORS = 100;

export interface LeadImportResult {
  created: number;
  skipped: number;
  errors: Array<{ row: number; message: string }>;
  /** Rows whose lead the list held already (or an earlier row did): 1-based data rows, the header not counted. */
  duplicates: { count: number; rows: number[] };
}

/** A file's usable leads, each with its data row (1-based, the header not counted), and the rows it skipped. */
interface ReadLeads {
  leads: LeadInput[];
  rows: number[];
  skipped: number;
  errors: LeadImportResult['errors'];
}

/**
 * Imports a lead CSV into a list inside one transaction: a failure part-way (413, broken upload) stores nothing, so
 * a retry never doubles rows. Rows that fail validation are skipped and reported by row number. The whole upload is
 * read and checked before the transaction begins (its leads take a few times the file's bytes, and the route reads
 * two uploads at most at once), so the list's lock and a database connection are held while the rows are stored,
 * not for as long as the client takes to send them; a file refused (413, malformed) never reaches the database.
 */
export async function importLeadCsv(
  em: EntityManager,
  target: { organizationId: string; listId: string; source: LeadSource; onDuplicate: OnDuplicate },
  file: Readable,
  maxRows: number,
): Promise<LeadImportResult> {
  const { leads, rows, skipped, errors } = await readLeads(file, maxRows);
  if (leads.length === 0 && skipped === 0) throw new ApiError('unprocessable', 'The file has no data rows', { reason: 'no_data_rows' });
  return em.transactional(async (tx) => {
    await lockListForAdding(tx, target.listId);
    const { ids, duplicates } = await addNewLeads(tx, target, leads);
    const duplicateRows = duplicates.map((index) => rows[index]!);
    return { created: ids.length, skipped, errors, duplicates: { count: duplicateRows.length, rows: duplicateRows } };
  });
}

async function readLeads(file: Readable, maxRows: number): Promise<ReadLeads> {
  const read: ReadLeads = { leads: [], rows: [], skipped: 0, errors: [] };
  let mapping: Map<number, keyof typeof LEAD_CSV_ALIASES> | undefined;
  let rowNumber = 1;
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
        read.skipped++;
        if (read.errors.length < MAX_REPORTED_ERRORS) {
          const message = parsed.success ? 'empty row' : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
          read.errors.push({ row: rowNumber, message });
        }
        continue;
      }
      read.leads.push(parsed.data);
      read.rows.push(rowNumber - 1);
    }
  } catch (err) {
    throw uploadError(err);
  }
  if (!mapping) throw new ApiError('unprocessable', 'The file has no header row', { reason: 'empty' });
  return read;
}
