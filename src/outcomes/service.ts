/** Send outcomes as the organization reports them (CONTRACT §12), and what they say about the Catch-All scores. */
import type { Readable } from 'node:stream';
import type { EntityManager } from '@mikro-orm/postgresql';
import { importOutcomeCsv } from '../csv/import-outcomes.ts';
import { latestPerAddress, type OutcomeRecord } from '../domain/outcome-input.ts';
import { upsertOutcomes } from '../db/repos/outcomes.ts';
import { calibrationBands } from './repository-calibration.ts';

export { MAX_OUTCOME_FILE_BYTES } from '../csv/import-outcomes.ts';

/** Stores checked outcomes in one statement; answers how many were accepted (each one, replacing or not). */
export async function recordOutcomes(em: EntityManager, organizationId: string, records: OutcomeRecord[]): Promise<number> {
  await upsertOutcomes(em, organizationId, latestPerAddress(records));
  return records.length;
}

export function importOutcomes(em: EntityManager, organizationId: string, file: Readable) {
  return importOutcomeCsv(em, organizationId, file, new Date());
}

export function catchAllCalibration(em: EntityManager, organizationId: string) {
  return calibrationBands(em, organizationId);
}
