/**
 * The service's few hand-made spans (docs/platform/observability.md, "Tracing", explains the
 * choice of manual spans at choke points over auto-instrumentation). Everything here is built so
 * that tracing costs nothing when it is off and next to nothing when a request is sampled out:
 *
 * - `on` is false unless start-tracing.ts registered an exporter: every helper returns at once.
 * - Only an entry point (a request arriving, an event or a push job carrying a `traceparent`)
 *   starts a trace; everything below it starts a child only under a span that is recording. A
 *   sampled-out request therefore costs one random number (HeadSampling) and no context switch: its store,
 *   Redis and publish calls see no recording parent and run bare.
 * - A span's result is awaited only if the work was asynchronous anyway (maybe-promise.ts).
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  context,
  propagation,
  trace,
} from '@opentelemetry/api';
import type { Attributes, Context, Span, TextMapGetter } from '@opentelemetry/api';

/** As rpc/maybe-promise.ts (not imported: the RPC floor and logging stand on this folder). */
type MaybePromise<T> = T | Promise<T>;

export { SpanKind };
export type { Attributes, Span };

const TRACER_NAME = 'messaging-service';

/**
 * Which requests arriving without a caller's decision start a trace, decided here before the SDK
 * is asked anything (start-tracing.ts gives the SDK a sampler that keeps what reaches it): a
 * request that is not traced then costs one random number, not a span's ids and objects.
 */
export interface HeadSampling {
  /** The fraction of new traces kept (OTEL_TRACES_SAMPLER_ARG, 1 or 0 for always_on/_off). */
  readonly ratio: number;
  /** `parentbased_*`: a caller's `traceparent` decides instead (the SDK's ParentBased sampler). */
  readonly followParent: boolean;
}

let on = false;
let head: HeadSampling = { ratio: 0, followParent: true };

/** Set once, by start-tracing.ts, when an exporter is registered (and by its shutdown). */
export function setTracingOn(value: boolean, sampling: HeadSampling = head): void {
  on = value;
  head = sampling;
}

export function tracingOn(): boolean {
  return on;
}

/** A recording span and the context its work runs in. */
export interface ActiveSpan {
  readonly span: Span;
  readonly context: Context;
}

/** Reads one request header by its lower-case name. */
export type HeaderLookup = (name: string) => string | null | undefined;

const headerGetter: TextMapGetter<HeaderLookup> = {
  keys: () => [],
  get: (lookup, key) => lookup(key) ?? undefined,
};

/**
 * Whether a request arriving (REST gateway, gRPC server) may be traced, and under which parent:
 * the caller's `traceparent` when it sent one (and the sampler follows callers), else a new
 * trace with the probability of the head sampling. Undefined: not traced, nothing more to do.
 */
export function serverSpanParent(headers: HeaderLookup): Context | undefined {
  if (!on) return undefined;
  if (head.followParent && headers('traceparent'))
    return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  return head.ratio > 0 && Math.random() < head.ratio ? ROOT_CONTEXT : undefined;
}

/** The server span of a request under `parent` (serverSpanParent); undefined when sampled out. */
export function startServerSpan(
  name: string,
  parent: Context,
  attributes: Attributes,
): ActiveSpan | undefined {
  return started(name, SpanKind.SERVER, attributes, parent);
}

/**
 * The span of work handed over by another process (an event from Redis, a push job), under the
 * `traceparent` it carried. Undefined when off, when nothing was carried or when sampled out.
 */
export function startRemoteChildSpan(
  traceparent: string | undefined,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
): ActiveSpan | undefined {
  if (!on || traceparent === undefined) return undefined;
  const parent = propagation.extract(
    ROOT_CONTEXT,
    (key: string) => (key === 'traceparent' ? traceparent : undefined),
    headerGetter,
  );
  return started(name, kind, attributes, parent);
}

/** A child of the current span, only when the current span is recording. */
export function startChildSpan(
  name: string,
  attributes: Attributes,
  kind: SpanKind = SpanKind.INTERNAL,
): ActiveSpan | undefined {
  if (!on) return undefined;
  const parent = context.active();
  if (!trace.getSpan(parent)?.isRecording()) return undefined;
  return started(name, kind, attributes, parent);
}

function started(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  parent: Context,
): ActiveSpan | undefined {
  const span = trace.getTracer(TRACER_NAME).startSpan(name, { kind, attributes }, parent);
  // A sampled-out span records nothing: dropping it here spares its context switch and children.
  if (!span.isRecording()) return undefined;
  return { span, context: trace.setSpan(parent, span) };
}

/**
 * Runs `work` as the span's work (its context is active, so children and log lines see it) and
 * ends the span when the result settles, synchronously when `work` answered synchronously.
 * `onValue` may add what the result tells (a status code). Without a span, just `work()`.
 */
export function runInSpan<T>(
  active: ActiveSpan | undefined,
  work: () => MaybePromise<T>,
  onValue?: (span: Span, value: T) => void,
): MaybePromise<T> {
  if (!active) return work();
  const { span } = active;
  const done = (value: T): T => {
    onValue?.(span, value);
    span.end();
    return value;
  };
  const failed = (error: unknown): never => {
    markFailed(span, error);
    span.end();
    throw error;
  };
  let result: MaybePromise<T>;
  try {
    result = context.with(active.context, work);
  } catch (error) {
    return failed(error);
  }
  return result instanceof Promise ? result.then(done, failed) : done(result);
}

/** `runInSpan` of a child of the current span (see startChildSpan). */
export function inChildSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => MaybePromise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): MaybePromise<T> {
  if (!on) return work();
  return runInSpan(startChildSpan(name, attributes, kind), work);
}

/**
 * Marks a span failed with the error's class only: error messages can carry what a log line
 * must not (tokens, addresses), and a span is exported to yet another system.
 */
export function markFailed(span: Span, error: unknown): void {
  const type = error instanceof Error ? error.constructor.name : typeof error;
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** The W3C `traceparent` of a span (for a response header, an event, a push job). */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags.toString(16).padStart(2, '0')}`;
}

/** The `traceparent` of the current span when it is recording: what hand-overs carry. */
export function currentTraceparent(): string | undefined {
  if (!on) return undefined;
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? traceparentOf(span) : undefined;
}

/** The trace and span ids of the current recording span, for log lines. */
export function currentTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!on) return undefined;
  const span = trace.getSpan(context.active());
  if (!span?.isRecording()) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
