import { describe, expect, it } from 'vitest';
import { buildProfileSearchQuery, parseProfileTitle, pickProfileHit } from '../../src/domain/search-query.ts';

describe('buildProfileSearchQuery', () => {
  it.each([
    ['companies', { company: 'Acme', role: 'VP Sales' }, 'site:linkedin.com/in "Acme" "VP Sales"'],
    ['companies', { company: '  Acme   Corp ' }, 'site:linkedin.com/in "Acme Corp"'],
    ['companies', { company: 'Acme "The Best"', role: '' }, 'site:linkedin.com/in "Acme The Best"'],
    [
      'names',
      { firstName: 'Jane', lastName: 'Doe', company: 'Acme' },
      'site:linkedin.com/in "Jane Doe" "Acme"',
    ],
    ['names', { fullName: 'Jane Q. Doe', company: 'Acme' }, 'site:linkedin.com/in "Jane Q. Doe" "Acme"'],
    ['names', { firstName: 'Jane', lastName: 'Doe', fullName: 'ignored' }, 'site:linkedin.com/in "Jane Doe"'],
    ['domains', { domain: 'acme.com', role: 'CTO' }, 'site:linkedin.com/in "acme.com" "CTO"'],
    ['domains', { domain: 'https://www.Acme.com/about?x=1' }, 'site:linkedin.com/in "acme.com"'],
    ['domains', { domain: 'www.acme.co.uk' }, 'site:linkedin.com/in "acme.co.uk"'],
  ] as const)('%s %j → %s', (inputType, row, expected) => {
    expect(buildProfileSearchQuery(inputType, row)).toBe(expected);
  });

  it.each([
    ['companies', { role: 'VP Sales' }],
    ['companies', { company: '  ' }],
    ['names', { company: 'Acme' }],
    ['names', { firstName: ' ', lastName: '', fullName: null }],
    ['domains', { role: 'CTO' }],
    ['domains', { domain: 'not a domain' }],
    ['domains', { domain: 'localhost' }],
  ] as const)('%s %j → null (nothing to search for)', (inputType, row) => {
    expect(buildProfileSearchQuery(inputType, row)).toBeNull();
  });
});

describe('parseProfileTitle', () => {
  it.each([
    [
      'Jane Doe - VP Sales - Acme | LinkedIn',
      { firstName: 'Jane', lastName: 'Doe', role: 'VP Sales', company: 'Acme' },
    ],
    ['Jane Doe – Acme | LinkedIn', { firstName: 'Jane', lastName: 'Doe', company: 'Acme' }],
    [
      'Jane Doe — VP Sales — Acme - LinkedIn',
      { firstName: 'Jane', lastName: 'Doe', role: 'VP Sales', company: 'Acme' },
    ],
    ['Jane Doe - LinkedIn', { firstName: 'Jane', lastName: 'Doe' }],
    ['Jane Doe | LinkedIn', { firstName: 'Jane', lastName: 'Doe' }],
    ['Jane Doe', { firstName: 'Jane', lastName: 'Doe' }],
    ['Madonna - Singer - Self | LinkedIn', { firstName: 'Madonna', role: 'Singer', company: 'Self' }],
    [
      'Jane Doe, MBA - Head of Growth - Acme Corp | LinkedIn',
      { firstName: 'Jane', lastName: 'Doe', role: 'Head of Growth', company: 'Acme Corp' },
    ],
    [
      'Dr. Jane (JD) van der Berg - CTO - Acme | LinkedIn',
      { firstName: 'Jane', lastName: 'van der Berg', role: 'CTO', company: 'Acme' },
    ],
    [
      'Jane Doe - VP - Sales & Marketing - Acme | LinkedIn',
      { firstName: 'Jane', lastName: 'Doe', role: 'VP - Sales & Marketing', company: 'Acme' },
    ],
    ['Jane Doe - VP Sales - Acme Corpor...', { firstName: 'Jane', lastName: 'Doe', role: 'VP Sales' }],
    ['Jane Doe - Acme Corpor…', { firstName: 'Jane', lastName: 'Doe' }],
    ['Jane Do...', { firstName: 'Jane' }],
    ['Jan…', {}],
    [
      'Jane Doe - VP Sales - Acme | Link…',
      { firstName: 'Jane', lastName: 'Doe', role: 'VP Sales', company: 'Acme' },
    ],
    [
      'Jane Doe - Engineer - LinkedIn | LinkedIn',
      { firstName: 'Jane', lastName: 'Doe', role: 'Engineer', company: 'LinkedIn' },
    ],
    [
      'José Álvarez-Núñez - Director - Acmé | LinkedIn',
      { firstName: 'José', lastName: 'Álvarez-Núñez', role: 'Director', company: 'Acmé' },
    ],
    ['| LinkedIn', {}],
    ['', {}],
  ])('%j', (title, expected) => {
    expect(parseProfileTitle(title)).toEqual(expected);
  });
});

describe('pickProfileHit', () => {
  it('takes the first hit that links a profile, normalizing its URL', () => {
    const hits = [
      { title: 'Acme | LinkedIn', url: 'https://www.linkedin.com/company/acme', snippet: '' },
      { title: 'Post', url: 'https://www.linkedin.com/posts/jane_123', snippet: '' },
      {
        title: 'Jane Doe - VP Sales - Acme | LinkedIn',
        url: 'https://uk.linkedin.com/in/JaneDoe?trk=1',
        snippet: 'a',
      },
      { title: 'John Roe - CTO - Acme | LinkedIn', url: 'https://www.linkedin.com/in/johnroe', snippet: 'b' },
    ];
    expect(pickProfileHit(hits)).toEqual({
      networkUrl: 'https://www.linkedin.com/in/janedoe',
      hit: hits[2],
      parsed: { firstName: 'Jane', lastName: 'Doe', role: 'VP Sales', company: 'Acme' },
    });
  });

  it('answers null when no hit is a profile', () => {
    expect(pickProfileHit([{ title: 'Acme', url: 'https://acme.com/team' }])).toBeNull();
    expect(pickProfileHit([])).toBeNull();
  });
});
