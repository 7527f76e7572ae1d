import { mapHeader, rowToObject } from './csv-header.ts';
import type { ScrapeInputType } from './search-query.ts';

export type { ScrapeInputType } from './search-query.ts';

export const SCRAPE_INPUT_TYPES = ['companies', 'names', 'domains'] as const satisfies readonly ScrapeInputType[];
export const SCRAPE_JOB_STATUSES = ['pending', 'processing', 'paused', 'completed', 'failed'] as const;
export type ScrapeJobStatus = (typeof SCRAPE_JOB_STATUSES)[number];
export const SCRAPE_ITEM_STATUSES = ['pending', 'found', 'not_found', 'failed'] as const;
export type ScrapeItemStatus = (typeof SCRAPE_ITEM_STATUSES)[number];

/** Where pause and resume are allowed (CONTRACT §4); every other status answers 409. */
export const PAUSABLE: readonly ScrapeJobStatus[] = ['pending', 'processing'];
export const RESUMABLE: readonly ScrapeJobStatus[] = ['paused'];

/** Column names of an uploaded scrape file, compared without case, spaces, dashes or underscores. */
export const SCRAPE_CSV_ALIASES = {
  company: ['company', 'company_name', 'organization', 'organisation'],
  role: ['role', 'title', 'job_title', 'position'],
  firstName: ['first_name', 'firstname', 'given_name'],
  lastName: ['last_name', 'lastname', 'surname', 'family_name'],
  fullName: ['full_name', 'name', 'fullname'],
  domain: ['domain', 'website', 'company_domain', 'company_website'],
} as const satisfies Record<string, readonly string[]>;
export type ScrapeColumn = keyof typeof SCRAPE_CSV_ALIASES;

/** Stored lengths; longer cells are cut so one odd row never rejects a whole file. */
const MAX_LENGTH: Record<Exclude<ScrapeColumn, 'fullName'>, number> = {
  company: 300,
  role: 300,
  firstName: 200,
  lastName: 200,
  domain: 253,
};

/** The columns each input type needs: any one of the alternatives (each a set of columns) will do. */
const REQUIRED: Record<ScrapeInputType, ReadonlyArray<readonly ScrapeColumn[]>> = {
  names: [['firstName', 'lastName'], ['fullName']],
  companies: [['company']],
  domains: [['domain']],
};

/**
 * Detection order when the upload names no `inputType`: a file with person names is a names file
 * (its company column narrows the search); company names search better than domains, which profile
 * pages rarely mention, so `companies` wins over `domains` when both columns are there.
 */
const DETECTION_ORDER: readonly ScrapeInputType[] = ['names', 'companies', 'domains'];

export const acceptedScrapeColumns = () => Object.values(SCRAPE_CSV_ALIASES).flat();

export const requiredColumnsText = (inputType: ScrapeInputType) =>
  REQUIRED[inputType].map((set) => set.map((column) => SCRAPE_CSV_ALIASES[column][0]).join(' + ')).join(' or ');

export function supportsInputType(columns: ReadonlySet<ScrapeColumn>, inputType: ScrapeInputType): boolean {
  return REQUIRED[inputType].some((set) => set.every((column) => columns.has(column)));
}

export function detectInputType(columns: ReadonlySet<ScrapeColumn>): ScrapeInputType | null {
  return DETECTION_ORDER.find((type) => supportsInputType(columns, type)) ?? null;
}

export function mapScrapeHeader(header: string[]): Map<number, ScrapeColumn> {
  return mapHeader(header, SCRAPE_CSV_ALIASES);
}

/** One stored row: the values a search can use, empty cells as null. */
export interface ScrapeRowValues {
  company: string | null;
  role: string | null;
  firstName: string | null;
  lastName: string | null;
  domain: string | null;
}

/** A record's values by the header mapping; a full name fills first/last name when those are empty. */
export function scrapeRowValues(record: string[], mapping: Map<number, ScrapeColumn>): ScrapeRowValues {
  const raw = rowToObject(record, mapping);
  let { firstName, lastName } = raw;
  if (!firstName && !lastName && raw.fullName) {
    const [first, ...rest] = raw.fullName.split(/\s+/).filter(Boolean);
    firstName = first;
    lastName = rest.length > 0 ? rest.join(' ') : undefined;
  }
  const cut = (column: keyof typeof MAX_LENGTH, value: string | undefined) =>
    value ? value.slice(0, MAX_LENGTH[column]) : null;
  return {
    company: cut('company', raw.company),
    role: cut('role', raw.role),
    firstName: cut('firstName', firstName),
    lastName: cut('lastName', lastName),
    domain: cut('domain', raw.domain),
  };
}

/** `Q3 leads.csv` → `Q3 leads`; the default job name. */
export function jobNameFromFileName(fileName: string): string {
  const base = fileName.replace(/^.*[\\/]/, '').replace(/\.[^.]*$/, '').trim();
  return base.slice(0, 200);
}
