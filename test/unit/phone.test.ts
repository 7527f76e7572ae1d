import { describe, expect, it } from 'vitest';
import { normalizePhone } from '../../src/domain/phone.ts';

describe('normalizePhone', () => {
  it.each([
    ['+1 415-555-2671', undefined, '+14155552671'],
    ['+1 (212) 555-0100', undefined, '+12125550100'],
    ['(415) 555-2671', 'US', '+14155552671'],
    ['+44 20 7946 0958', undefined, '+442079460958'],
    ['020 7946 0958', 'GB', '+442079460958'],
    ['07911 123456', 'GB', '+447911123456'],
    ['+49 30 901820', undefined, '+4930901820'],
    ['030 901820', 'DE', '+4930901820'],
    ['+33 6 12 34 56 78', undefined, '+33612345678'],
    ['  +1.415.555.2671  ', undefined, '+14155552671'],
    ['+1 415 555 2671 ext. 12', undefined, '+14155552671'],
  ] as const)('%j (%s) → %s', (raw, country, expected) => {
    expect(normalizePhone(raw, country)).toBe(expected);
  });

  it.each([
    ['', undefined],
    ['not a phone', undefined],
    ['415-555-2671', undefined], // national number without a country
    ['+1 555', undefined], // too short
    ['+1 099 555 2671', undefined], // US area codes never start with 0
    ['+44 20 7946 09581234', undefined], // too long
    ['12345', 'US'],
    ['07700 900123', 'GB'], // reserved for drama: not a real number
    ['+999 123 456 789', undefined], // no such country code
  ] as const)('%j (%s) → null', (raw, country) => {
    expect(normalizePhone(raw, country)).toBeNull();
  });
});
