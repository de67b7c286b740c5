/**
 * A small OTLP/HTTP trace receiver for tests: an HTTP server that takes what an exporter posts to
 * `/v1/traces` (OTLP JSON, `OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) and keeps every span with the
 * resource it came from. Decoded here by the OTLP JSON mapping (ids in hex, attributes as typed
 * values), independently of the SDK that encoded them.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Empty for a root span (of this process; a remote parent's id otherwise). */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** The resource's attributes: service.name, process.pid, … */
  readonly resource: Readonly<Record<string, unknown>>;
}

export interface OtlpReceiver {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly url: string;
  readonly spans: readonly ReceivedSpan[];
  close(): Promise<void>;
}

interface KeyValue {
  key: string;
  value: Record<string, unknown>;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/v1/traces' || !request.headers['content-type']?.includes('json')) {
        response.writeHead(415).end();
        return;
      }
      spans.push(...decode(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function decode(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        resource,
      })),
    );
  });
}

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    const [kind, raw] = Object.entries(value)[0] ?? [];
    result[key] = kind === 'intValue' ? Number(raw) : raw;
  }
  return result;
}
