import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { insertScrapeItems } from './repository-items.ts';
import {
  acceptedScrapeColumns,
  mapScrapeHeader,
  SCRAPE_INPUT_TYPES,
  type ScrapeColumn,
  type ScrapeRowValues,
  scrapeRowValues,
} from '../domain/scrape.ts';
import { ApiError } from '../errors.ts';
import { readCsvRecords, uploadError } from '../csv/read.ts';

const BATCH = 1000;

/** The text fields of the upload; they may come before or after the file. */
export const ScrapeUploadFieldsSchema = z.object({
  name: z.string().trim().max(200).optional(),
  inputType: z.enum(SCRAPE_INPUT_TYPES).optional(),
});
export type ScrapeUploadFields = z.infer<typeof ScrapeUploadFieldsSchema>;

interface StoredScrapeRows {
  totalItems: number;
  /** The recognized columns of the header row: what decides (or must support) the input type. */
  columns: Set<ScrapeColumn>;
}

/**
 * Streams a scrape CSV into `scrape_item` rows of `jobId` in batches, through `em` (the caller's
 * transaction, so a rejection part-way stores nothing). Every non-blank data row becomes one item,
 * numbered from 1; memory holds one batch whatever the file's size.
 */
export async function storeScrapeRows(em: EntityManager, jobId: string, file: Readable, maxRows: number): Promise<StoredScrapeRows> {
  let mapping: ReturnType<typeof mapScrapeHeader> | undefined;
  let batch: Array<ScrapeRowValues & { rowNumber: number }> = [];
  let rowNumber = 0;
  try {
    for await (const record of readCsvRecords(file)) {
      if (!mapping) {
        mapping = mapScrapeHeader(record);
        if (mapping.size === 0) {
          throw new ApiError('unprocessable', 'No recognized column in the header row', {
            reason: 'unrecognized_headers',
            accepted: acceptedScrapeColumns(),
          });
        }
        continue;
      }
      rowNumber++;
      if (rowNumber > maxRows) {
        throw new ApiError('unprocessable', `The file has more than ${maxRows} data rows`, { reason: 'too_many_rows', maxRows });
      }
      batch.push({ rowNumber, ...scrapeRowValues(record, mapping) });
      if (batch.length >= BATCH) {
        await insertScrapeItems(em, jobId, batch);
        batch = [];
      }
    }
  } catch (err) {
    throw uploadError(err);
  }
  if (!mapping) throw new ApiError('unprocessable', 'The file has no header row', { reason: 'empty' });
  if (rowNumber === 0) throw new ApiError('unprocessable', 'The file has no data rows', { reason: 'no_data_rows' });
  await insertScrapeItems(em, jobId, batch);
  return { totalItems: rowNumber, columns: new Set(mapping.values()) };
}
