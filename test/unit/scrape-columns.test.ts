import { describe, expect, it } from 'vitest';
import { companyDomainOf } from '../../src/domain/company-domain.ts';
import {
  detectInputType,
  jobNameFromFileName,
  mapScrapeHeader,
  type ScrapeColumn,
  scrapeRowValues,
  supportsInputType,
} from '../../src/domain/scrape.ts';

const columnsOf = (header: string[]) => new Set(mapScrapeHeader(header).values());

describe('scrape input type detection', () => {
  it.each([
    [['Company', 'Role'], 'companies'],
    [['company_name', 'job_title'], 'companies'],
    [['Organization'], 'companies'],
    [['First Name', 'Last Name'], 'names'],
    [['full_name', 'company'], 'names'],
    [['Name', 'Position', 'Company'], 'names'],
    [['domain', 'title'], 'domains'],
    [['Website'], 'domains'],
    [['company-domain', 'role'], 'domains'],
    [['company', 'website'], 'companies'],
    [['first_name', 'company'], 'companies'],
    [['title'], null],
    [['email', 'phone'], null],
  ] as const)('%j → %s', (header, expected) => {
    expect(detectInputType(columnsOf([...header]))).toBe(expected);
  });

  it('an explicit type needs its columns', () => {
    const columns = new Set<ScrapeColumn>(['company', 'domain']);
    expect(supportsInputType(columns, 'domains')).toBe(true);
    expect(supportsInputType(columns, 'names')).toBe(false);
    expect(supportsInputType(new Set<ScrapeColumn>(['firstName']), 'names')).toBe(false);
  });
});

describe('scrapeRowValues', () => {
  it('maps by header, empty cells to null, splits a full name, cuts over-long cells', () => {
    const mapping = mapScrapeHeader(['name', 'company', 'notes', 'title']);
    expect(scrapeRowValues(['  Jean  Luc Picard ', 'Starfleet', 'x', ''], mapping)).toEqual({
      firstName: 'Jean',
      lastName: 'Luc Picard',
      company: 'Starfleet',
      role: null,
      domain: null,
    });
    expect(scrapeRowValues(['Cher'], mapping)).toMatchObject({ firstName: 'Cher', lastName: null, company: null });
    expect(scrapeRowValues(['', 'x'.repeat(400)], mapping).company).toHaveLength(300);
  });

  it('keeps explicit first/last names over a full name', () => {
    const mapping = mapScrapeHeader(['first_name', 'last_name', 'full_name']);
    expect(scrapeRowValues(['Ada', 'Lovelace', 'Augusta Ada King'], mapping)).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
  });
});

describe('helpers', () => {
  it.each([
    ['https://www.Acme.com/about?x=1', 'acme.com'],
    ['acme.co.uk', 'acme.co.uk'],
    ['not a domain', null],
    [null, null],
  ])('companyDomainOf(%j) → %j', (raw, expected) => {
    expect(companyDomainOf(raw)).toBe(expected);
  });

  it.each([
    ['Q3 leads.csv', 'Q3 leads'],
    ['C:\\exports\\targets.v2.csv', 'targets.v2'],
    ['noext', 'noext'],
    ['.csv', ''],
  ])('jobNameFromFileName(%j) → %j', (file, expected) => {
    expect(jobNameFromFileName(file)).toBe(expected);
  });
});
