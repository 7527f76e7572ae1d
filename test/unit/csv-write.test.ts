import { describe, expect, it } from 'vitest';
import { attachmentDisposition, csvLine, defuseFormula } from '../../src/csv/write.ts';

describe('csvLine', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+1+cmd|\' /C calc\'!A0', "'+1+cmd|' /C calc'!A0"],
    ['-2+3+cmd|x!A0', "'-2+3+cmd|x!A0"],
    ['+SUM(A1:A2)', "'+SUM(A1:A2)"],
    ['-', "'-"],
    ['+ ', "'+ "],
    ['+1 415 555\t0100', "'+1 415 555\t0100"],
    ['+1 415 555 0100', '+1 415 555 0100'],
    ['+14155550100', '+14155550100'],
    ['+44 (20) 7946-0958', '+44 (20) 7946-0958'],
    ['+49.30.1234', '+49.30.1234'],
    ['-5', '-5'],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['a=b', 'a=b'],
    ['', ''],
  ])('defuses %j as %j', (cell, expected) => {
    expect(defuseFormula(cell)).toBe(expected);
  });

  it('quotes separators, quotes and line breaks, renders null as empty, ends with CRLF', () => {
    expect(csvLine(['a', null, 'b,c', 'say "hi"', 'two\nlines', undefined])).toBe('a,,"b,c","say ""hi""","two\nlines",\r\n');
    expect(csvLine(['=cmd|"/c calc"!A0'])).toBe(`"'=cmd|""/c calc""!A0"\r\n`);
  });
});

describe('attachmentDisposition', () => {
  it('keeps an ASCII fallback free of quotes, slashes and control characters, and the exact name encoded', () => {
    expect(attachmentDisposition('Q3 "hot"/leads\r\n', 'csv')).toBe(
      `attachment; filename="Q3 _hot_leads_.csv"; filename*=UTF-8''Q3%20%22hot%22%2Fleads%0D%0A.csv`,
    );
    expect(attachmentDisposition('Müller’s Liste', 'csv')).toBe(`attachment; filename="M_ller_s Liste.csv"; filename*=UTF-8''M%C3%BCller%E2%80%99s%20Liste.csv`);
    expect(attachmentDisposition('../..', 'csv')).toBe(`attachment; filename="download.csv"; filename*=UTF-8''..%2F...csv`);
  });
});
