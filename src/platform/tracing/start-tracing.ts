/**
 * Starts OpenTelemetry tracing when an OTLP endpoint is configured: the Node tracer provider
 * (AsyncLocalStorage context, W3C trace-context propagation), a batch span processor and the
 * OTLP/HTTP exporter (protobuf or JSON). Nothing is loaded or registered otherwise, so a process
 * without an endpoint runs exactly as before. Only the OpenTelemetry SDK's own parts are used:
 * no auto-instrumentation (spans are made at the service's choke points, spans.ts).
 */
import { hostname } from 'node:os';
import type { Sampler } from '@opentelemetry/sdk-trace-node';
import type { Role, TracingSettings } from '../config/settings.js';
import { setTracingOn } from './spans.js';
import type { HeadSampling } from './spans.js';

/** What is logged at start (the logger stands on this folder, so it is not imported). */
export interface TracingLogger {
  info(fields: object, message: string): void;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Exports what is still buffered and stops; later spans are dropped. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = { enabled: false, shutdown: () => Promise.resolve() };

export async function startTracing(
  settings: TracingSettings,
  role: Role,
  logger: TracingLogger,
): Promise<Tracing> {
  const url = tracesUrl(settings);
  if (settings.disabled || url === undefined) return OFF;
  const sampling = headSamplingOf(settings);
  // Loaded only when used: a process without tracing never pays for the SDK's modules.
  const [{ NodeTracerProvider, BatchSpanProcessor }, { resourceFromAttributes }, exporterModule] =
    await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/resources'),
      settings.protocol === 'http/json'
        ? import('@opentelemetry/exporter-trace-otlp-http')
        : import('@opentelemetry/exporter-trace-otlp-proto'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': settings.serviceName ?? `messaging-${role}`,
      'service.namespace': 'messaging',
      'service.instance.id': hostname(),
      'messaging.role': role,
      'process.pid': process.pid,
    }),
    sampler: await samplerOf(sampling),
    spanProcessors: [new BatchSpanProcessor(new exporterModule.OTLPTraceExporter({ url }))],
  });
  provider.register();
  setTracingOn(true, sampling);
  logger.info(
    { url: withoutCredentials(url), protocol: settings.protocol, sampler: settings.sampler },
    'tracing: spans are exported over OTLP',
  );
  return {
    enabled: true,
    async shutdown() {
      setTracingOn(false);
      await provider.shutdown();
    },
  };
}

function tracesUrl(settings: TracingSettings): string | undefined {
  if (settings.tracesEndpoint !== undefined) return settings.tracesEndpoint;
  if (settings.endpoint === undefined) return undefined;
  return `${settings.endpoint.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * The head sampling of new traces is spans.ts's (a cheap decision before any span exists); the
 * SDK's sampler keeps what it is given, following a caller's decision with `parentbased_*`.
 */
function headSamplingOf(settings: TracingSettings): HeadSampling {
  const root = settings.sampler.replace('parentbased_', '');
  const ratio = root === 'always_on' ? 1 : root === 'always_off' ? 0 : settings.samplerRatio;
  return { ratio, followParent: settings.sampler.startsWith('parentbased_') };
}

async function samplerOf(sampling: HeadSampling): Promise<Sampler> {
  const { AlwaysOnSampler, ParentBasedSampler } = await import('@opentelemetry/sdk-trace-node');
  const root = new AlwaysOnSampler();
  return sampling.followParent ? new ParentBasedSampler({ root }) : root;
}

/** A collector URL may carry credentials; the log line must not. */
function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  parsed.username = '';
  parsed.password = '';
  return parsed.toString();
}
