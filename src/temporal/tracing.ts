import type { OpenTelemetryPlugin } from '@temporalio/interceptors-opentelemetry';
import type { Config } from '../config.ts';

export interface Tracing {
  /** Temporal's own interceptors for client, workflows and activities, carrying the trace across the server. */
  plugin: OpenTelemetryPlugin;
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry traces, only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: one trace runs from the HTTP request
 * through the workflow it starts to every activity, exported over OTLP/HTTP. The exporter reads the standard
 * `OTEL_*` variables (endpoint, headers, batch delays) itself. Without it the SDK is not even loaded: its modules
 * are ~6 MB of live heap that every full collection walks.
 */
export async function startTracing(config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_SERVICE_NAME' | 'ROLE'>): Promise<Tracing | null> {
  if (!config.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  const [{ OTLPTraceExporter }, { Resource }, { BatchSpanProcessor }, { NodeTracerProvider }, { OpenTelemetryPlugin }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-trace-node'),
    import('@temporalio/interceptors-opentelemetry'),
  ]);
  const resource = new Resource({ 'service.name': config.OTEL_SERVICE_NAME, 'service.instance.role': config.ROLE });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global tracer and an AsyncLocalStorage context, so the request's span is the parent of what it starts.
  provider.register();
  return { plugin: new OpenTelemetryPlugin({ resource, spanProcessor }), shutdown: () => provider.shutdown() };
}
