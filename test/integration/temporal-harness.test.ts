import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { initOrm } from '../../src/db/orm.ts';
import { jobSearchAttributes } from '../../src/temporal/shared.ts';
import { harnessProbe, proceed } from '../support/workflows/harness-probe.ts';

describe('Temporal test harness', () => {
  it('runs a workflow with search attributes, a signal and a database activity on the dev server', async () => {
    const orm = await initOrm(inject('databaseUrl'));
    const nativeConnection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const client = new Client({ connection });
    const taskQueue = `harness-${Date.now()}`;
    const worker = await Worker.create({
      connection: nativeConnection,
      taskQueue,
      workflowsPath: path.join(import.meta.dirname, '../support/workflows/harness-probe.ts'),
      activities: {
        countOrganizations: async () => {
          const rows = await orm.em.fork().getConnection().execute('select count(*)::int as n from organization');
          return Number(rows[0]?.n);
        },
      },
    });
    try {
      const result = await worker.runUntil(async () => {
        const handle = await client.workflow.start(harnessProbe, {
          taskQueue,
          workflowId: `harness-${Date.now()}`,
          typedSearchAttributes: jobSearchAttributes('verification', '00000000-0000-7000-8000-000000000000', 'list-1'),
        });
        await handle.signal(proceed);
        const value = await handle.result();
        const description = await handle.describe();
        expect(description.typedSearchAttributes.get(jobSearchAttributes('verification', 'x')[1]!.key)).toBe('verification');
        return value;
      });
      expect(typeof result).toBe('number');
    } finally {
      await connection.close();
      await nativeConnection.close();
      await orm.close();
    }
  });
});
