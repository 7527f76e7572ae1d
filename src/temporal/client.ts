import { Client, type ClientPlugin, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import type { Config } from '../config.ts';

/**
 * Lazy: the API starts (and /readyz reports) even while Temporal is still coming up. A request waits at most
 * a few seconds for an unreachable server (a short connect deadline, three attempts instead of the SDK's ten
 * over ~20 s) and then answers 503, so clients retry rather than hang; it reconnects within seconds of the
 * server's return.
 */
export function createTemporalClient(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>, plugins: ClientPlugin[] = []): Client {
  const connection = Connection.lazy({
    address: config.TEMPORAL_ADDRESS ?? 'localhost:7233',
    connectTimeout: '3s',
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 3 }))],
    // gRPC's reconnect backoff grows to two minutes by default; the API should notice a returned server in seconds.
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 3000 },
  });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, plugins });
}
