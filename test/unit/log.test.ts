import { afterEach, describe, expect, it, vi } from 'vitest';
import { addLogContext, log, withLogContext } from '../../src/log.ts';

afterEach(() => vi.restoreAllMocks());

function captured(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
  return lines;
}

describe('log context', () => {
  it('adds the request, organization and job fields to every line written inside, however deep, and nothing outside', async () => {
    const lines = captured();
    await withLogContext({ requestId: 'r-1' }, async () => {
      addLogContext({ organizationId: 'org-1' });
      await Promise.resolve();
      await withLogContext({ jobId: 'job-1' }, async () => log.info('inner', { extra: 1 }));
      log.info('outer');
    });
    log.info('outside');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ msg: 'inner', requestId: 'r-1', organizationId: 'org-1', jobId: 'job-1', extra: 1 }),
      expect.objectContaining({ msg: 'outer', requestId: 'r-1', organizationId: 'org-1' }),
      expect.not.objectContaining({ requestId: expect.anything() }),
    ]);
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('jobId');
  });
});
