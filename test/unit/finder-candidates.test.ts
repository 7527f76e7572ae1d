import { describe, expect, it } from 'vitest';
import { EMAIL_TEMPLATES } from '../../src/domain/email-templates.ts';
import { findCandidates, templateOrder } from '../../src/domain/finder.ts';

const locals = (c: Array<{ email: string }>) => c.map((x) => x.email.split('@')[0]);

describe('finder candidates', () => {
  it('spell the names lowercased without accents, in the given template order, at most max', () => {
    const found = findCandidates({ firstName: 'José', lastName: 'García' }, 'acme.test', EMAIL_TEMPLATES, 4);
    expect(found).toEqual([
      { email: 'jose.garcia@acme.test', template: 'first.last' },
      { email: 'jgarcia@acme.test', template: 'flast' },
      { email: 'jose@acme.test', template: 'first' },
      { email: 'josegarcia@acme.test', template: 'firstlast' },
    ]);
  });

  it("drop apostrophes, and try a compound name's other spellings with the first template before the next template", () => {
    expect(locals(findCandidates({ firstName: 'Seán', lastName: "O'Brien" }, 'x.test', ['flast', 'first.last'], 8))).toEqual(['sobrien', 'sean.obrien']);
    expect(locals(findCandidates({ firstName: 'Mary-Jane', lastName: 'van der Berg' }, 'x.test', EMAIL_TEMPLATES, 8))).toEqual([
      'maryjane.vanderberg',
      'mary.vanderberg',
      'maryjane.van',
      'jane.vanderberg',
      'maryjane.berg',
      'mvanderberg',
      'maryjane',
      'maryjanevanderberg',
    ]);
  });

  it('make nothing of names without letters or digits, and never the same address twice', () => {
    expect(findCandidates({ firstName: '--', lastName: 'Doe' }, 'x.test', EMAIL_TEMPLATES, 8)).toEqual([]);
    const all = findCandidates({ firstName: 'A', lastName: 'B' }, 'x.test', EMAIL_TEMPLATES, 100);
    expect(new Set(all.map((c) => c.email)).size).toBe(all.length);
  });

  it("order templates by the domain's learned counts, then the global counts, then the documented default", () => {
    expect(templateOrder([], [])).toEqual([...EMAIL_TEMPLATES]);
    const global = [
      { template: 'flast' as const, validCount: 50 },
      { template: 'first.last' as const, validCount: 40 },
      { template: 'last' as const, validCount: 40 },
    ];
    expect(templateOrder([], global).slice(0, 4)).toEqual(['flast', 'first.last', 'last', 'first']);
    const domain = [
      { template: 'firstl' as const, validCount: 3 },
      { template: 'first' as const, validCount: 7 },
      { template: 'fl' as const, validCount: 0 },
    ];
    const order = templateOrder(domain, global);
    expect(order.slice(0, 5)).toEqual(['first', 'firstl', 'flast', 'first.last', 'last']);
    expect([...order].sort()).toEqual([...EMAIL_TEMPLATES].sort());
  });
});
