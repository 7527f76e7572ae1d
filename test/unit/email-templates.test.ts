import { describe, expect, it } from 'vitest';
import { EMAIL_TEMPLATES, localPartFor, nameVariants, templatesOf } from '../../src/domain/email-templates.ts';

describe('email templates', () => {
  it('build every template from the names', () => {
    const made = Object.fromEntries(EMAIL_TEMPLATES.map((t) => [t, localPartFor(t, 'jane', 'doe')]));
    expect(made).toMatchObject({ 'first.last': 'jane.doe', flast: 'jdoe', first: 'jane', firstlast: 'janedoe', first_last: 'jane_doe', 'last.first': 'doe.jane', 'f.last': 'j.doe', firstl: 'janed', last: 'doe', 'first-last': 'jane-doe' });
  });

  it('spell names without accents, apostrophes or case, and compounds whole or in part', () => {
    expect(nameVariants('José')).toEqual(['jose']);
    expect(nameVariants("O'Brien")).toEqual(['obrien']);
    expect(nameVariants('Mary-Jane')).toEqual(['maryjane', 'mary', 'jane']);
    expect(nameVariants('van der Berg')).toEqual(['vanderberg', 'van', 'berg']);
    expect(nameVariants('Müller-Lüdenscheidt')).toEqual(['mullerludenscheidt', 'muller', 'ludenscheidt']);
    expect(nameVariants('Søren Łukasz')).toEqual(['sorenlukasz', 'soren', 'lukasz']);
  });

  it('recognise which templates made a local part', () => {
    expect(templatesOf('jane.doe', 'Jane', 'Doe')).toEqual(['first.last']);
    expect(templatesOf('JDOE', 'Jane', 'Doe')).toEqual(['flast']);
    expect(templatesOf('jose.garcia', 'José', 'García')).toEqual(['first.last']);
    expect(templatesOf('mary.smith', 'Mary-Jane', 'Smith')).toEqual(['first.last']);
    expect(templatesOf('someone', 'Jane', 'Doe')).toEqual([]);
  });
});
