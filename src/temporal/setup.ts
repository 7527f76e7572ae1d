import { setTimeout as sleep } from 'node:timers/promises';
import { Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { z } from 'zod';
import { TEMPORAL_SEARCH_ATTRIBUTES, type SearchAttributeName } from './search-attributes.ts';

type IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;
const { IndexedValueType } = proto.temporal.api.enums.v1;

const INDEXED_VALUE_TYPES = {
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
} as const satisfies Record<(typeof TEMPORAL_SEARCH_ATTRIBUTES)[SearchAttributeName], IndexedValueType>;

const GRPC_NOT_FOUND = 5;
const GRPC_ALREADY_EXISTS = 6;
const GRPC_UNAVAILABLE = 14;

// Jobs may wait days for a decision; keep their history browsable for a week after they close.
const NAMESPACE_RETENTION = '7 days';

// A cluster that was just started (docker compose) may refuse connections, or not know a namespace it
// registered a moment ago, for a few seconds.
const READY_TIMEOUT_MS = 60_000;

const SetupEnv = z.object({
  TEMPORAL_ADDRESS: z.string().min(1).default('localhost:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
});

export class SearchAttributeTypeConflictError extends Error {
  readonly attribute: SearchAttributeName;

  constructor(attribute: SearchAttributeName, namespace: string) {
    super(
      `Search attribute ${attribute} already exists in namespace ${namespace} with a type other than ` +
        `${TEMPORAL_SEARCH_ATTRIBUTES[attribute]}; remove it or rename ours.`,
    );
    this.name = 'SearchAttributeTypeConflictError';
    this.attribute = attribute;
  }
}

export interface SearchAttributesReport {
  added: SearchAttributeName[];
  present: SearchAttributeName[];
}

function hasGrpcCode(err: unknown, code: number): boolean {
  return isGrpcServiceError(err) && err.code === code;
}

async function untilReady<T>(attempt: () => Promise<T>, retryOn: number[]): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      const retryable = retryOn.some((code) => hasGrpcCode(err, code));
      if (!retryable || Date.now() > deadline) throw err;
      await sleep(1000);
    }
  }
}

async function connectWhenReady(address: string): Promise<Connection> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      return await Connection.connect({ address, connectTimeout: '5s' });
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(1000);
    }
  }
}

/** Registers the namespace when the cluster does not have it yet. */
export async function ensureNamespace(
  connection: Connection,
  namespace: string,
): Promise<'created' | 'present'> {
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return 'present';
  } catch (err) {
    if (!hasGrpcCode(err, GRPC_NOT_FOUND)) throw err;
  }
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(NAMESPACE_RETENTION),
    });
    return 'created';
  } catch (err) {
    if (hasGrpcCode(err, GRPC_ALREADY_EXISTS)) return 'present';
    throw err;
  }
}

/** Adds the missing search attributes; idempotent, and refuses to paper over a type mismatch. */
export async function registerSearchAttributes(
  connection: Connection,
  namespace: string,
): Promise<SearchAttributesReport> {
  const existing = await untilReady(
    () => connection.operatorService.listSearchAttributes({ namespace }),
    [GRPC_NOT_FOUND, GRPC_UNAVAILABLE],
  );
  const report: SearchAttributesReport = { added: [], present: [] };
  const missing: Record<string, IndexedValueType> = {};
  for (const [name, type] of Object.entries(TEMPORAL_SEARCH_ATTRIBUTES) as [
    SearchAttributeName,
    keyof typeof INDEXED_VALUE_TYPES,
  ][]) {
    const wanted = INDEXED_VALUE_TYPES[type];
    const current = existing.customAttributes?.[name];
    if (current === undefined || current === null) {
      missing[name] = wanted;
      report.added.push(name);
    } else if (current !== wanted) {
      throw new SearchAttributeTypeConflictError(name, namespace);
    } else {
      report.present.push(name);
    }
  }
  if (report.added.length === 0) return report;
  try {
    await untilReady(
      () => connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing }),
      [GRPC_NOT_FOUND, GRPC_UNAVAILABLE],
    );
  } catch (err) {
    // Another setup run added them between our list and our add.
    if (!hasGrpcCode(err, GRPC_ALREADY_EXISTS)) throw err;
  }
  return report;
}

async function main(): Promise<void> {
  const env = SetupEnv.parse(process.env);
  console.log(`Temporal setup: ${env.TEMPORAL_ADDRESS}, namespace ${env.TEMPORAL_NAMESPACE}`);
  const connection = await connectWhenReady(env.TEMPORAL_ADDRESS);
  try {
    const namespace = await ensureNamespace(connection, env.TEMPORAL_NAMESPACE);
    console.log(
      `namespace ${env.TEMPORAL_NAMESPACE}: ${namespace === 'created' ? 'registered' : 'already present'}`,
    );
    const report = await registerSearchAttributes(connection, env.TEMPORAL_NAMESPACE);
    for (const name of report.added)
      console.log(`search attribute ${name} (${TEMPORAL_SEARCH_ATTRIBUTES[name]}): added`);
    for (const name of report.present) {
      console.log(`search attribute ${name} (${TEMPORAL_SEARCH_ATTRIBUTES[name]}): already present`);
    }
  } finally {
    await connection.close();
  }
}

if (import.meta.main) {
  main().catch((err: unknown) => {
    console.error('Temporal setup failed:', err instanceof Error ? err.message : err);
    process.exitCode = 1;
  });
}
