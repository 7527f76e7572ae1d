import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureMaintenance, maintenanceWorkflowId } from '../../src/temporal/maintenance.ts';
import { eventually } from '../support/eventually.ts';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: true });
});
afterAll(async () => {
  await h.temporal.workflow.getHandle(maintenanceWorkflowId(h.config.TEMPORAL_TASK_QUEUE)).terminate('test over').catch(() => undefined);
  await h.stop();
});

describe('housekeeping workflow', () => {
  it('deletes idempotency keys past 24 h and verify cache rows past their TTL, keeping the rest, once per task queue', async () => {
    const { organizationId } = await h.signup();
    const tag = randomUUID();
    const key = (age: string) =>
      h.sql(
        `insert into idempotency_key (id, organization_id, key, method, path, body_hash, status, response, created_at)
         values (gen_random_uuid(), ?, ?, 'POST', '/api/lists', '', 201, '{}', now() - ?::interval)`,
        [organizationId, `${tag}-${age}`, age],
      );
    const check = (email: string, age: string) =>
      h.sql(
        `insert into verify_check (id, organization_id, email, domain, result, checked_at)
         values (gen_random_uuid(), ?, ?, 'acme.test', 'Valid', now() - ?::interval)`,
        [organizationId, email, age],
      );
    const fact = (domain: string, age: string) =>
      h.sql(`insert into verify_domain_fact (id, domain, checked_at) values (gen_random_uuid(), ?, now() - ?::interval)`, [domain, age]);
    await key('25 hours');
    await key('23 hours');
    await check(`old-${tag}@acme.test`, '2 hours');
    await check(`new-${tag}@acme.test`, '10 minutes');
    await fact(`old-${tag}.test`, '25 hours');
    await fact(`new-${tag}.test`, '23 hours');

    const config = { TEMPORAL_TASK_QUEUE: h.config.TEMPORAL_TASK_QUEUE, CLEANUP_INTERVAL: 3_600_000 };
    const handle = h.temporal.workflow.getHandle(maintenanceWorkflowId(h.config.TEMPORAL_TASK_QUEUE));
    await ensureMaintenance(h.temporal, config);
    const first = await handle.describe();
    // Every worker calls it at start: the running workflow is kept, not started again.
    await ensureMaintenance(h.temporal, config);
    const second = await handle.describe();
    expect(second.status.name).toBe('RUNNING');
    expect(second.runId).toBe(first.runId);

    const left = () =>
      h.sql(
        `select key as name from idempotency_key where key like ? union all
         select email from verify_check where email like ? union all
         select domain from verify_domain_fact where domain like ?`,
        [`${tag}-%`, `%-${tag}@acme.test`, `%-${tag}.test`],
      );
    const rows = await eventually(left, (r) => r.length === 3, { what: 'the cleanup to leave three rows' });
    expect(rows.map((r) => r.name).sort()).toEqual([`${tag}-23 hours`, `new-${tag}.test`, `new-${tag}@acme.test`].sort());
  });
});
