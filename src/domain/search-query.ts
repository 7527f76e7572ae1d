import { normalizeProfileUrl } from './profile-url.ts';
import { companyDomainOf } from './company-domain.ts';

export type ScrapeInputType = 'companies' | 'names' | 'domains';

/** The values of one uploaded row that a search can use; any may be missing or blank. */
export interface ScrapeRowInput {
  company?: string | null;
  role?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  fullName?: string | null;
  domain?: string | null;
}

export interface ParsedProfileTitle {
  firstName?: string;
  lastName?: string;
  role?: string;
  company?: string;
}

export interface ProfileMatch<H> {
  /** Normalized (see profile-url.ts). */
  networkUrl: string;
  hit: H;
  parsed: ParsedProfileTitle;
}

const SITE = 'site:linkedin.com/in';
const SITE_SUFFIX = /\s*(?:[-–—|·:]\s*)?LinkedIn\s*$/i;
const ELLIPSIS = /(?:\.\.\.|…)$/;

/**
 * The web-search query for one row, e.g. `site:linkedin.com/in "Acme" "VP Sales"`; null when the
 * row lacks what its input type needs (a company, a name, or a usable domain).
 */
export function buildProfileSearchQuery(inputType: ScrapeInputType, row: ScrapeRowInput): string | null {
  const role = phrase(row.role);
  switch (inputType) {
    case 'companies': {
      const company = phrase(row.company);
      return company ? join([SITE, company, role]) : null;
    }
    case 'names': {
      const name = phrase(fullNameOf(row));
      return name ? join([SITE, name, phrase(row.company)]) : null;
    }
    case 'domains': {
      const domain = companyDomainOf(row.domain);
      return domain ? join([SITE, `"${domain}"`, role]) : null;
    }
  }
}

/**
 * Names, role and company from a result title. The site titles profiles
 * `Name - Role - Company | LinkedIn` or `Name - Company | LinkedIn` (hyphen, en or em dash; the
 * suffix may also be `- LinkedIn`). A part cut short by the search engine (`Acme Corpor...`) is dropped.
 */
export function parseProfileTitle(title: string): ParsedProfileTitle {
  let text = title.replace(/\s+/g, ' ').trim();
  let truncated = ELLIPSIS.test(text);
  text = stripEllipsis(text).replace(SITE_SUFFIX, '');
  truncated ||= ELLIPSIS.test(text);
  text = stripEllipsis(text);

  const parts = text
    .split(/\s+[-–—|·]\s+/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
  // Cut inside the site suffix ("Acme | Link…"): every real part is whole.
  const last = parts.at(-1)?.toLowerCase();
  if (truncated && parts.length > 1 && last && 'linkedin'.startsWith(last)) {
    parts.pop();
    truncated = false;
  }

  const [namePart = '', ...rest] = parts;
  if (rest.length === 0 && truncated) {
    // Only the name, cut short: its first word is whole only when another word follows.
    const { firstName, lastName } = splitName(namePart);
    return firstName && lastName ? { firstName } : {};
  }
  const parsed: ParsedProfileTitle = splitName(namePart);
  if (rest.length >= 2) parsed.role = rest.slice(0, -1).join(' - ');
  // The last part is the company, unless the engine cut it short.
  if (rest.length >= 1 && !truncated) parsed.company = rest.at(-1);
  return parsed;
}

/** The first hit that links a profile (`linkedin.com/in/...`), with its normalized URL and parsed title. */
export function pickProfileHit<H extends { url: string; title: string }>(
  hits: readonly H[],
): ProfileMatch<H> | null {
  for (const hit of hits) {
    const networkUrl = normalizeProfileUrl(hit.url);
    if (networkUrl) return { networkUrl, hit, parsed: parseProfileTitle(hit.title) };
  }
  return null;
}

function fullNameOf(row: ScrapeRowInput): string | undefined {
  const joined = [row.firstName, row.lastName]
    .map((part) => part?.trim() ?? '')
    .filter(Boolean)
    .join(' ');
  return joined || row.fullName?.trim() || undefined;
}

/** A value as an exact-phrase search term; quotes inside would end the phrase, so they go. */
function phrase(value: string | null | undefined): string | undefined {
  const clean = value?.replace(/["“”]/g, ' ').replace(/\s+/g, ' ').trim();
  return clean ? `"${clean}"` : undefined;
}

function join(terms: (string | undefined)[]): string {
  return terms.filter((term): term is string => term !== undefined).join(' ');
}

/** `https://www.Acme.com/about` → `acme.com`; null when no host name can be read. */

function stripEllipsis(text: string): string {
  return text.replace(ELLIPSIS, '').trim();
}

/** "Jane Doe, MBA", "Dr. Jane (JD) Doe" → Jane / Doe. The first word is the first name, the rest the last. */
function splitName(raw: string): Pick<ParsedProfileTitle, 'firstName' | 'lastName'> {
  const cleaned = raw
    .replace(/\([^)]*\)/g, ' ')
    .replace(/,.*$/, '')
    .replace(/^(?:dr|mr|mrs|ms|prof)\.?\s+/i, '')
    .replace(/[^\p{L}\p{M}\s'’.-]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const [firstName, ...last] = cleaned.split(' ').filter(Boolean);
  if (!firstName) return {};
  return last.length > 0 ? { firstName, lastName: last.join(' ') } : { firstName };
}
