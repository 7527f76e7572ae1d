import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';

const run = promisify(execFile);
const ADMIN = path.join(import.meta.dirname, '../../src/admin.ts');

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const admin = (...args: string[]) =>
  run(process.execPath, [ADMIN, ...args], { env: { ...process.env, DATABASE_URL: inject('databaseUrl') } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe('npm run admin -- grant-credits', () => {
  it('writes one ledger row and moves the balance; a repeated idempotency key changes nothing', async () => {
    const { organizationId, agent } = await h.signup();
    const first = await admin('grant-credits', '--org', organizationId, '--credits', '40', '--reason', 'pilot', '--idempotency-key', 'deal-7');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('balance 40');
    const again = await admin('grant-credits', '--org', organizationId, '--credits', '40', '--reason', 'pilot', '--idempotency-key', 'deal-7');
    expect(again.stdout).toContain('already applied');
    const rows = await h.sql(`select delta, reason, ref_type from credit_ledger where organization_id = ?`, [organizationId]);
    expect(rows).toEqual([{ delta: 40, reason: 'pilot', ref_type: 'admin' }]);
    expect((await agent.get('/api/auth/me')).body.organization.creditBalance).toBe(40);
  });

  it('refuses bad arguments and a debit below zero with a usage message', async () => {
    const { organizationId } = await h.signup();
    expect((await admin('grant-credits', '--org', 'nope', '--credits', '5', '--reason', 'x')).code).toBe(2);
    expect((await admin('grant-credits', '--org', organizationId, '--credits', '0', '--reason', 'x')).code).toBe(2);
    const debit = await admin('grant-credits', '--org', organizationId, '--credits=-1', '--reason', 'x');
    expect(debit.code).toBe(2);
    expect(debit.stderr).toContain('Insufficient credits');
    expect(await h.sql(`select * from credit_ledger where organization_id = ?`, [organizationId])).toEqual([]);
  });
});
