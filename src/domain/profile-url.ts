// Profile URLs of the networking site, normalized so one person has exactly one spelling: the
// enrichment cache, lead deduplication and sync all compare these strings.
//
// Canonical form: `https://www.linkedin.com/in/<slug>`
// - any of http/https, no scheme, `linkedin.com`, `www.`, `m.` or a country subdomain (`uk.`) is accepted;
// - query, fragment, trailing slash and anything after the slug (`/en`, `/details/...`) are dropped;
// - the slug is lower-cased (the site treats vanity names case-insensitively and redirects to the
//   lower-case form) and percent-encoded canonically: `J%C3%B6rg`, `jörg` and `JÖRG` all become `j%C3%B6rg`.
// Anything else (company pages, posts, other hosts, ports, credentials) is not a profile URL: null.

const PROFILE_HOST = /^(?:(?:www|m|[a-z]{2})\.)?linkedin\.com$/;
const SLUG = /^[\p{L}\p{M}\p{N}_-]{1,100}$/u;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export const PROFILE_URL_PREFIX = 'https://www.linkedin.com/in/';

export function normalizeProfileUrl(raw: string): string | null {
  const trimmed = raw.trim();
  if (trimmed === '' || trimmed.length > 2048) return null;
  const withScheme = HAS_SCHEME.test(trimmed) ? trimmed : `https://${trimmed.replace(/^\/+/, '')}`;

  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.port) return null;
  if (!PROFILE_HOST.test(url.hostname)) return null;

  const [section, encodedSlug] = url.pathname.split('/').filter(Boolean);
  if (section?.toLowerCase() !== 'in' || encodedSlug === undefined) return null;

  let slug: string;
  try {
    slug = decodeURIComponent(encodedSlug).normalize('NFC').toLowerCase();
  } catch {
    return null;
  }
  if (!SLUG.test(slug)) return null;
  return `${PROFILE_URL_PREFIX}${encodeURIComponent(slug)}`;
}

export function isProfileUrl(raw: string): boolean {
  return normalizeProfileUrl(raw) !== null;
}
