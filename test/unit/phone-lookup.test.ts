import { describe, expect, it } from 'vitest';
import { phoneForLookup } from '../../src/domain/phone-lookup.ts';

describe('phoneForLookup', () => {
  it.each([
    ['+14155552671', undefined],
    ['+1 (415) 555-2671', undefined],
    ['+1.415.555.2671', undefined],
    ['tel:+1-415-555-2671', undefined],
    ['14155552671', undefined],
    ['1 415 555 2671', undefined],
    ['001 415 555 2671', undefined],
    ['(415) 555-2671', 'US'],
    ['415.555.2671', 'US'],
    ['001 415 555 2671', 'DE'],
  ] as const)('%j (%s) is looked up as +14155552671', (raw, country) => {
    expect(phoneForLookup(raw, country)).toBe('+14155552671');
  });

  it('reads national numbers with the given country, and the 00 exit code without one', () => {
    expect(phoneForLookup('020 7946 0958', 'GB')).toBe('+442079460958');
    expect(phoneForLookup('0044 20 7946 0958')).toBe('+442079460958');
  });

  it.each([
    ['a national number without a country', '(415) 555-2671', '(415) 555-2671'],
    ['a trunk-prefixed national number without a country', '020 7946 0958', '020 7946 0958'],
    ['something that is not a number', '  ask for Bob ', 'ask for Bob'],
    ['too few digits', '12345', '12345'],
  ])('keeps %s as given (trimmed)', (_name, raw, expected) => {
    expect(phoneForLookup(raw)).toBe(expected);
  });
});
