import { describe, expect, it } from 'vitest';
import { isProfileUrl, normalizeProfileUrl } from '../../src/domain/profile-url.ts';

describe('normalizeProfileUrl', () => {
  it.each([
    ['https://www.linkedin.com/in/janedoe', 'https://www.linkedin.com/in/janedoe'],
    ['http://linkedin.com/in/janedoe/', 'https://www.linkedin.com/in/janedoe'],
    ['linkedin.com/in/janedoe', 'https://www.linkedin.com/in/janedoe'],
    ['www.linkedin.com/in/janedoe', 'https://www.linkedin.com/in/janedoe'],
    ['//www.linkedin.com/in/janedoe', 'https://www.linkedin.com/in/janedoe'],
    ['  https://uk.linkedin.com/in/jane-doe-1a2b3c  ', 'https://www.linkedin.com/in/jane-doe-1a2b3c'],
    ['https://de.linkedin.com/in/jane_doe?originalSubdomain=de', 'https://www.linkedin.com/in/jane_doe'],
    ['https://m.linkedin.com/in/janedoe#experience', 'https://www.linkedin.com/in/janedoe'],
    ['HTTPS://WWW.LINKEDIN.COM/IN/JaneDoe', 'https://www.linkedin.com/in/janedoe'],
    ['https://www.linkedin.com/in/janedoe/en', 'https://www.linkedin.com/in/janedoe'],
    ['https://www.linkedin.com/in/janedoe/details/experience/', 'https://www.linkedin.com/in/janedoe'],
    [
      'https://www.linkedin.com/in/j%C3%B6rg-m%C3%BCller',
      'https://www.linkedin.com/in/j%C3%B6rg-m%C3%BCller',
    ],
    ['https://www.linkedin.com/in/jörg-müller', 'https://www.linkedin.com/in/j%C3%B6rg-m%C3%BCller'],
    ['https://www.linkedin.com/in/J%C3%96RG', 'https://www.linkedin.com/in/j%C3%B6rg'],
    ['https://www.linkedin.com/in/j%c3%b6rg', 'https://www.linkedin.com/in/j%C3%B6rg'],
  ])('%s → %s', (raw, expected) => {
    expect(normalizeProfileUrl(raw)).toBe(expected);
  });

  it.each([
    '',
    'janedoe',
    'https://www.linkedin.com/',
    'https://www.linkedin.com/in/',
    'https://www.linkedin.com/in//',
    'https://www.linkedin.com/company/acme',
    'https://www.linkedin.com/pub/jane-doe/1/2/3',
    'https://www.linkedin.com/posts/janedoe_activity-123',
    'https://linkedin.com.evil.com/in/janedoe',
    'https://evil.com/in/janedoe',
    'https://evillinkedin.com/in/janedoe',
    'https://a.b.linkedin.com/in/janedoe',
    'https://www.linkedin.com:8443/in/janedoe',
    'https://user:pass@www.linkedin.com/in/janedoe',
    'ftp://www.linkedin.com/in/janedoe',
    'javascript:alert(1)//linkedin.com/in/x',
    'https://www.linkedin.com/in/jane%20doe',
    'https://www.linkedin.com/in/jane%3Cscript%3E',
    'https://www.linkedin.com/in/%E0%A4%A',
    `https://www.linkedin.com/in/${'a'.repeat(101)}`,
  ])('%j is not a profile URL', (raw) => {
    expect(normalizeProfileUrl(raw)).toBeNull();
    expect(isProfileUrl(raw)).toBe(false);
  });

  it('is idempotent', () => {
    const once = normalizeProfileUrl('uk.linkedin.com/in/Jörg-Müller/?trk=x');
    expect(once).not.toBeNull();
    expect(normalizeProfileUrl(once ?? '')).toBe(once);
  });
});
