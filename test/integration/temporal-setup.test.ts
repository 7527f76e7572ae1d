import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEMPORAL_SEARCH_ATTRIBUTES } from '../../src/temporal/search-attributes.ts';
import {
  SearchAttributeTypeConflictError,
  ensureNamespace,
  registerSearchAttributes,
} from '../../src/temporal/setup.ts';
import { eventually } from '../support/eventually.ts';

const { IndexedValueType } = proto.temporal.api.enums.v1;
const ALL = Object.keys(TEMPORAL_SEARCH_ATTRIBUTES);

describe('npm run temporal:setup', () => {
  let connection: Connection;

  beforeAll(async () => {
    connection = await Connection.connect({ address: inject('temporalAddress') });
  });
  afterAll(async () => {
    await connection.close();
  });

  it('registers a missing namespace once and then reports it present', async () => {
    const namespace = `setup-${randomUUID()}`;
    expect(await ensureNamespace(connection, namespace)).toBe('created');
    expect(await ensureNamespace(connection, namespace)).toBe('present');
  });

  it('adds the three Keyword search attributes, and a second run changes nothing', async () => {
    const namespace = `setup-${randomUUID()}`;
    await ensureNamespace(connection, namespace);

    const first = await registerSearchAttributes(connection, namespace);
    expect(first.added.sort()).toEqual([...ALL].sort());
    expect(first.present).toEqual([]);

    const listed = await connection.operatorService.listSearchAttributes({ namespace });
    for (const name of ALL) {
      expect(listed.customAttributes?.[name]).toBe(IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    }

    const second = await registerSearchAttributes(connection, namespace);
    expect(second.added).toEqual([]);
    expect(second.present.sort()).toEqual([...ALL].sort());
  });

  it('refuses an existing attribute of another type instead of reporting success', async () => {
    const namespace = `setup-${randomUUID()}`;
    await ensureNamespace(connection, namespace);
    await registerSearchAttributesAs(
      connection,
      namespace,
      'ListId',
      IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
    );

    const attempt = registerSearchAttributes(connection, namespace);
    await expect(attempt).rejects.toBeInstanceOf(SearchAttributeTypeConflictError);
    await expect(attempt).rejects.toMatchObject({ attribute: 'ListId' });
  });
});

async function registerSearchAttributesAs(
  connection: Connection,
  namespace: string,
  name: string,
  type: proto.temporal.api.enums.v1.IndexedValueType,
): Promise<void> {
  // A namespace registered a moment ago may not be known to the operator service yet: refused until it is.
  await eventually(
    () => connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { [name]: type } }),
    () => true,
    { what: `search attribute ${name} added in ${namespace}`, timeoutMs: 15_000, intervalMs: 500 },
  );
}
