import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.ts';

/** Lazy: the API starts (and /readyz reports) even while Temporal is still coming up. */
export function createTemporalClient(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): Client {
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS ?? 'localhost:7233' });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
}
