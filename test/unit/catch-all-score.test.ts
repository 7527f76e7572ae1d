import { describe, expect, it } from 'vitest';
import { type CatchAllSignals, dominantTemplate, looksRandom, scoreCatchAll } from '../../src/domain/catch-all-score.ts';

const plain: CatchAllSignals = {
  localPart: 'jane.doe',
  names: null,
  domainTemplate: null,
  role: false,
  providerAcceptsAll: false,
  directoryAbsent: false,
  foundByProvider: false,
  prior: null,
};
const learned = (template: 'first.last' | 'flast', share: number, seen: number) => ({ template, share, seen });

describe('the catch-all score', () => {
  it('starts in the middle of the scale with nothing but the domain accepting everything', () => {
    expect(scoreCatchAll(plain)).toEqual({ score: 5, reasons: ['domain_catch_all'] });
  });

  it("rises when the address follows the domain's learned template, by the lead's names", () => {
    const s = scoreCatchAll({ ...plain, names: { firstName: 'Jane', lastName: 'Doe' }, domainTemplate: learned('first.last', 0.9, 10) });
    expect(s).toEqual({ score: 8, reasons: ['domain_catch_all', 'pattern_match'] });
  });

  it('falls when it does not follow a dominant template', () => {
    const s = scoreCatchAll({ ...plain, localPart: 'janed', names: { firstName: 'Jane', lastName: 'Doe' }, domainTemplate: learned('flast', 0.7, 4) });
    expect(s).toEqual({ score: 3, reasons: ['domain_catch_all', 'pattern_mismatch'] });
  });

  it('judges a local part without names by its shape only where the shape tells', () => {
    expect(scoreCatchAll({ ...plain, domainTemplate: learned('first.last', 0.6, 3) }).reasons).toContain('pattern_match');
    expect(scoreCatchAll({ ...plain, localPart: 'jdoe', domainTemplate: learned('first.last', 0.6, 3) }).reasons).toContain('pattern_mismatch');
    // `flast` has no telling shape: no pattern signal either way.
    expect(scoreCatchAll({ ...plain, localPart: 'jdoe', domainTemplate: learned('flast', 0.9, 9) }).reasons).toEqual(['domain_catch_all']);
  });

  it('ignores a template learned from too few addresses or not dominant', () => {
    expect(scoreCatchAll({ ...plain, localPart: 'jdoe', domainTemplate: learned('first.last', 0.9, 2) }).score).toBe(5);
    expect(scoreCatchAll({ ...plain, localPart: 'jdoe', domainTemplate: learned('first.last', 0.4, 20) }).score).toBe(5);
  });

  it('marks role accounts and random-looking local parts', () => {
    expect(scoreCatchAll({ ...plain, localPart: 'sales', role: true })).toEqual({ score: 6, reasons: ['domain_catch_all', 'role_account'] });
    expect(scoreCatchAll({ ...plain, localPart: 'xkqzvwtr' })).toEqual({ score: 2, reasons: ['domain_catch_all', 'random_looking'] });
  });

  it('rises when an enrichment provider returned the address', () => {
    expect(scoreCatchAll({ ...plain, foundByProvider: true })).toEqual({ score: 7, reasons: ['domain_catch_all', 'found_by_provider'] });
  });

  it('falls a little when the provider accepts every address by policy', () => {
    expect(scoreCatchAll({ ...plain, providerAcceptsAll: true })).toEqual({ score: 4, reasons: ['domain_catch_all', 'provider_accepts_all'] });
  });

  it('is at most 2 when the directory does not know the address, however strong the rest', () => {
    const s = scoreCatchAll({ ...plain, foundByProvider: true, directoryAbsent: true, names: { firstName: 'Jane', lastName: 'Doe' }, domainTemplate: learned('first.last', 1, 9) });
    expect(s.score).toBe(2);
    expect(s.reasons).toContain('directory_absent');
  });

  it('is 0 after a hard bounce and at least 8 after a delivery', () => {
    expect(scoreCatchAll({ ...plain, foundByProvider: true, prior: 'hard_bounce' })).toEqual({ score: 0, reasons: ['domain_catch_all', 'prior_bounced'] });
    const delivered = scoreCatchAll({ ...plain, localPart: 'xkqzvwtr', prior: 'delivered' });
    expect(delivered.score).toBe(8);
    expect(delivered.reasons).toEqual(['domain_catch_all', 'random_looking', 'prior_delivered']);
  });

  it('stays within 0–10', () => {
    const low = scoreCatchAll({ ...plain, localPart: 'x9z8q7w6v5', providerAcceptsAll: true, names: { firstName: 'Jane', lastName: 'Doe' }, domainTemplate: learned('first.last', 1, 50) });
    expect(low.score).toBe(0);
    const high = scoreCatchAll({ ...plain, role: false, foundByProvider: true, names: { firstName: 'Jane', lastName: 'Doe' }, domainTemplate: learned('first.last', 1, 50) });
    expect(high.score).toBe(10);
  });
});

describe('random-looking local parts', () => {
  it.each(['xkqzvwtr', 'a8f3e2c1d4b5e6f7', 'user12345', 'qwrtplkj'])('%s looks random', (local) => expect(looksRandom(local)).toBe(true));
  it.each(['jane.doe', 'jdoe', 'sales', 'j.smith2', 'christopher', 'anna-maria.schmidt', 'brzeczyszczykiewicz.g'])('%s does not', (local) =>
    expect(looksRandom(local)).toBe(false),
  );
});

describe('the dominant template', () => {
  it('is the most common with its share of everything learned', () => {
    expect(dominantTemplate([{ template: 'flast', validCount: 3 }, { template: 'first.last', validCount: 9 }])).toEqual({ template: 'first.last', share: 0.75, seen: 12 });
    expect(dominantTemplate([])).toBeNull();
  });
});
