import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CsvFormatError, MAX_COLUMNS, MAX_RECORD_BYTES, readCsvRecords } from '../../src/csv/read.ts';

/** The file arrives in small chunks, as an upload does, so checks that span chunk boundaries are exercised. */
function chunked(bytes: Buffer, size = 7): Readable {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  return Readable.from(parts);
}

async function read(content: string | Buffer, size?: number): Promise<string[][]> {
  const records: string[][] = [];
  for await (const record of readCsvRecords(chunked(Buffer.isBuffer(content) ? content : Buffer.from(content), size))) records.push(record);
  return records;
}

async function problem(content: string | Buffer, size?: number): Promise<CsvFormatError> {
  try {
    await read(content, size);
  } catch (err) {
    if (err instanceof CsvFormatError) return err;
    throw err;
  }
  throw new Error('expected a CsvFormatError');
}

describe('readCsvRecords', () => {
  it('reads BOM, `;` separators, quoted newlines, ragged rows and multi-byte text split across chunks', async () => {
    const records = await read('\uFEFFemail;name\n"a@x.test";"Zoë\nSecond line"\nb@x.test\n\nc@x.test;Jürgen;extra\n', 3);
    expect(records).toEqual([['email', 'name'], ['a@x.test', 'Zoë\nSecond line'], ['b@x.test'], ['c@x.test', 'Jürgen', 'extra']]);
  });

  it('names the problem and its line: an unclosed quote, a stray character after a closing quote', async () => {
    expect(await problem('email,name\na@x.test,Ann\nb@x.test,"Bob\n')).toMatchObject({ kind: 'unclosed_quote' });
    const stray = await problem('email,name\na@x.test,Ann\nb@x.test,"Bob"x\n');
    expect(stray).toMatchObject({ kind: 'invalid_closing_quote', line: 3 });
    expect(stray.message).toContain('line 3');
  });

  it('refuses text that is not UTF-8 or holds NUL past the first block, naming the line', async () => {
    const latin1 = Buffer.concat([Buffer.from('email,name\na@x.test,Ann\nb@x.test,J'), Buffer.from([0xfc]), Buffer.from('rgen\n')]);
    expect(await problem(latin1)).toMatchObject({ kind: 'invalid_encoding', line: 3 });
    const padding = 'a@x.test,Ann\n'.repeat(6000);
    expect(await problem(`email,name\n${padding}b@x.test,B\u0000b\n`, 4096)).toMatchObject({ kind: 'nul_character', line: 6002 });
    expect(await problem(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0, 0]))).toMatchObject({ kind: 'binary' });
  });

  it('refuses a row over the size limit (a 5 MB cell) and a row with too many columns', async () => {
    expect(await problem(`email,notes\na@x.test,${'n'.repeat(5 * 1024 * 1024)}\n`, 64 * 1024)).toMatchObject({ kind: 'record_too_large' });
    expect(await problem(`email,notes\na@x.test,"${'q'.repeat(MAX_RECORD_BYTES + 10)}"\n`, 64 * 1024)).toMatchObject({ kind: 'record_too_large' });
    const wide = await problem(`${Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(',')}\n1,2\n`, 64 * 1024);
    expect(wide).toMatchObject({ kind: 'too_many_columns' });
    expect(wide.message).toContain('Row 1 has 100000 columns');
    expect(MAX_COLUMNS).toBeLessThan(100_000);
  });

  it('reports an error of the source itself (an aborted upload) as that error', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.from('email\na@x.test\n'));
    setImmediate(() => source.destroy(new Error('aborted')));
    const records: string[][] = [];
    await expect(
      (async () => {
        for await (const record of readCsvRecords(source)) records.push(record);
      })(),
    ).rejects.toThrow('aborted');
  });
});
