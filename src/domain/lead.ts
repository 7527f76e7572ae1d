export const EMAIL_RESULTS = ['Valid', 'Invalid', 'Catch-All', 'Unknown'] as const;
export type EmailResult = (typeof EMAIL_RESULTS)[number];

export const LEAD_SOURCES = ['manual', 'import', 'scrape', 'api'] as const;
export type LeadSource = (typeof LEAD_SOURCES)[number];

/** Fields a caller may set on a lead, by JSON route, CSV import or external API. */
export const LEAD_INPUT_FIELDS = [
  'firstName',
  'lastName',
  'title',
  'company',
  'companyDomain',
  'email',
  'networkUrl',
  'workEmail',
  'personalEmail',
  'phone',
] as const;
export type LeadInputField = (typeof LEAD_INPUT_FIELDS)[number];

/** A lead field's column (and CSV header) name: `companyDomain` → `company_domain`. */
export const snakeCase = (field: string) => field.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
