import { describe, expect, it } from 'vitest';
import {
  domainOf,
  isValidEmailSyntax,
  localPartOf,
  normalizeEmail,
  toAsciiDomain,
} from '../../src/domain/email.ts';

describe('normalizeEmail', () => {
  it('trims and lower-cases the domain but keeps the local part case', () => {
    expect(normalizeEmail('  John.Doe@Example.COM \n')).toBe('John.Doe@example.com');
  });

  it('converts an IDN domain to ASCII', () => {
    expect(normalizeEmail('jörg@Bücher.de')).toBe('jörg@xn--bcher-kva.de');
    expect(normalizeEmail('info@例え.テスト')).toBe('info@xn--r8jz45g.xn--zckzah');
  });

  it('splits at the last @', () => {
    expect(normalizeEmail('a@b@EXAMPLE.com')).toBe('a@b@example.com');
  });

  it('leaves a string without @ trimmed only', () => {
    expect(normalizeEmail('  Not An Address ')).toBe('Not An Address');
  });
});

describe('domainOf', () => {
  it('gives the lower-cased ASCII domain', () => {
    expect(domainOf('Someone@Sub.Example.ORG')).toBe('sub.example.org');
    expect(domainOf('x@bücher.de')).toBe('xn--bcher-kva.de');
  });

  it('gives an empty string when there is no domain', () => {
    expect(domainOf('nobody')).toBe('');
    expect(domainOf('nobody@')).toBe('');
  });
});

describe('toAsciiDomain', () => {
  it('refuses characters the URL host parser would percent-decode or accept', () => {
    expect(toAsciiDomain('ex%41mple.com')).toBe('');
    expect(toAsciiDomain('exa mple.com')).toBe('');
    expect(toAsciiDomain('under_score.com')).toBe('');
  });
});

describe('localPartOf', () => {
  it('is everything before the last @', () => {
    expect(localPartOf('Sales+EU@x.com')).toBe('Sales+EU');
    expect(localPartOf('plain')).toBe('');
  });
});

describe('isValidEmailSyntax', () => {
  it.each([
    'simple@example.com',
    'very.common@example.com',
    'Mixed.Case@Example.com',
    'x@example.com',
    "o'brien+tag@sub.domain.example.co.uk",
    "!#$%&'*+/=?^_`{|}~-@example.com",
    'user@xn--bcher-kva.de',
    'user@bücher.de',
    'user@my-domain.io',
    'user@123.example',
    `${'a'.repeat(64)}@example.com`,
  ])('accepts %s', (email) => {
    expect(isValidEmailSyntax(email)).toBe(true);
  });

  it.each([
    ['no @', 'plainaddress'],
    ['empty local part', '@example.com'],
    ['empty domain', 'user@'],
    ['leading dot', '.user@example.com'],
    ['trailing dot', 'user.@example.com'],
    ['double dot', 'us..er@example.com'],
    ['space in local part', 'us er@example.com'],
    ['quoted local part (deliberately refused)', '"john doe"@example.com'],
    ['address literal (deliberately refused)', 'user@[192.0.2.1]'],
    ['non-ASCII local part (deliberately refused)', 'jörg@example.com'],
    ['two @', 'a@b@example.com'],
    ['single-label domain', 'user@localhost'],
    ['numeric top-level label', 'user@192.0.2.1'],
    ['label starting with a hyphen', 'user@-example.com'],
    ['label ending with a hyphen', 'user@example-.com'],
    ['empty label', 'user@example..com'],
    ['trailing dot in domain', 'user@example.com.'],
    ['underscore in domain', 'user@ex_ample.com'],
    ['local part over 64', `${'a'.repeat(65)}@example.com`],
    ['label over 63', `user@${'a'.repeat(64)}.com`],
    ['surrounding whitespace (normalize first)', ' user@example.com'],
  ])('refuses %s', (_why, email) => {
    expect(isValidEmailSyntax(email)).toBe(false);
  });

  it('applies the 253-character domain limit', () => {
    const label = 'a'.repeat(63);
    const domain253 = `${label}.${label}.${label}.${'b'.repeat(57)}.com`;
    expect(domain253).toHaveLength(253);
    // The domain fits, but the whole address would exceed 254.
    expect(isValidEmailSyntax(`u@${domain253}`)).toBe(false);
    expect(isValidEmailSyntax(`u@${domain253.slice(2)}`)).toBe(true);
    expect(isValidEmailSyntax(`u@a${domain253}`)).toBe(false);
  });

  it('applies the 254-character address limit', () => {
    const domain = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.com`; // 195 characters
    const fits = `${'l'.repeat(254 - 1 - domain.length)}@${domain}`;
    expect(fits).toHaveLength(254);
    expect(isValidEmailSyntax(fits)).toBe(true);
    expect(isValidEmailSyntax(`l${fits}`)).toBe(false);
  });

  it('measures an IDN domain in its ASCII form', () => {
    const unicodeLabel = `${'a'.repeat(59)}ü`; // 60 characters, over 63 once encoded as xn--...
    expect(unicodeLabel).toHaveLength(60);
    expect(toAsciiDomain(`${unicodeLabel}.de`).split('.')[0]?.length).toBeGreaterThan(63);
    expect(isValidEmailSyntax(`user@${unicodeLabel}.de`)).toBe(false);
    expect(isValidEmailSyntax(`user@${'a'.repeat(50)}ü.de`)).toBe(true);
  });
});
