import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

const DIR = path.join(import.meta.dirname, 'histories');

async function recorded() {
  const files = (await readdir(DIR)).filter((f) => f.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) => ({ file, history: historyFromJSON(JSON.parse(await readFile(path.join(DIR, file), 'utf8'))) })),
  );
}

describe('workflow replay', () => {
  it('replays every recorded history of a real job against the current workflow code', { timeout: 120_000 }, async () => {
    const histories = await recorded();
    expect(histories.map((h) => h.file.replace(/^\d{4}-\d{2}-\d{2}-|\.json$/g, ''))).toEqual(
      expect.arrayContaining(['verification-smtp-only', 'verification-fallback-accept_current', 'verification-fallback-fill_all_gaps', 'verification-api-only', 'scrape-paused-resumed', 'enrichment-bulk', 'verify-single', 'verification-analyze-beside-slices']),
    );
    const failures: string[] = [];
    const results = Worker.runReplayHistories(
      { workflowBundle: { codePath: inject('workflowBundlePath') } },
      histories.map(({ file, history }) => ({ workflowId: file, history })),
    );
    for await (const result of results) if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    expect(failures).toEqual([]);
  });

  it('fails a history whose workflow code changed its commands', { timeout: 120_000 }, async () => {
    const [first] = (await recorded()).filter((h) => h.file.includes('verification-smtp-only'));
    const changed = path.join(import.meta.dirname, 'fixtures', 'changed-workflows.ts');
    await expect(
      Worker.runReplayHistory({ workflowsPath: changed }, first!.history, first!.file),
    ).rejects.toThrow(/[Nn]ondeterminism|DeterminismViolation/);
  });
});
