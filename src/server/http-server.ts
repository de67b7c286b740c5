/**
 * The HTTP front of a process, on uWebSockets.js: reads each request completely (bounded by
 * MAX_BODY_BYTES, or the route's own limit), gives it a request id and a logger, hands it to the dispatcher, writes the
 * answer, and records the access log line and the HTTP metrics. WebSocket routes are attached
 * to the same app by the realtime tier. A dispatcher that answers synchronously has its answer
 * written before the uWS callback returns; the client address is then read only if something
 * asked for it (see uws-request.ts).
 */
import type { BlockList } from 'node:net';
import uWS from 'uWebSockets.js';
import type { HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Logger } from '../platform/logging/logger.js';
import type { Metrics } from '../platform/metrics/metrics.js';
import { isPromise, settle } from '../platform/rpc/maybe-promise.js';
import type { MaybePromise } from '../platform/rpc/maybe-promise.js';
import { jsonResponse, statusLine } from './http-message.js';
import { RequestBodyStream } from './request-body-stream.js';
import { writeStreamedResponse } from './streamed-response.js';
import type {
  HttpResponseData,
  IncomingRequest,
  RoutedResponse,
  SizedStream,
} from './http-message.js';
import { UwsRequest } from './uws-request.js';

export type Dispatch = (request: IncomingRequest) => MaybePromise<RoutedResponse>;

export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly maxBodyBytes: number;
  /** A route's own body limit (media uploads), in place of `maxBodyBytes`. */
  readonly maxBodyBytesOf?: (method: string, path: string) => number | undefined;
  /** Whether the request's route takes its body as a stream (media uploads) rather than read whole. */
  readonly streamsBody?: (
    method: string,
    path: string,
    headers: ReadonlyMap<string, string>,
  ) => boolean;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly dispatch: Dispatch;
  /** Lets the realtime tier add its WebSocket route to the same app and port. */
  readonly attach?: (app: TemplatedApp) => void;
  /**
   * TRUSTED_PROXIES: connections from these addresses may name the client in X-Forwarded-For.
   * Unset: the client is always the socket address (and the header is not even read).
   */
  readonly trustedProxies?: BlockList | undefined;
}

export interface RunningHttpServer {
  readonly port: number;
  /**
   * Stops accepting connections, waits for in-flight requests (at most `timeoutMs`; responses
   * written meanwhile close their connection), then closes every remaining connection.
   */
  close(timeoutMs: number): Promise<void>;
}

const FLUSH_GRACE_MS = 100;
const BODYLESS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Metric labels take only these; anything else a client sends is counted as OTHER. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** On Node majors without a prebuilt addon the package silently falls back to a slow JS server. */
const NATIVE = String(uWS.App).includes('[native code]');

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  if (!NATIVE) {
    options.logger.error(
      'uWebSockets.js is NOT native on this Node version: running its slow JavaScript fallback',
    );
  }
  const app = uWS.App();
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;

  options.attach?.(app);
  app.any('/*', (res, req) => {
    inFlight++;
    const started = process.hrtime.bigint();
    const { logger } = options;
    const request = new UwsRequest(res, req, options.trustedProxies, logger);
    let aborted = false;
    let bodyStream: RequestBodyStream | undefined;
    res.onAborted(() => {
      aborted = true;
      bodyStream?.abort();
    });
    const finish = (response: RoutedResponse) => {
      // The access log names the client: read the address while the response can still tell.
      if (!aborted && logger.isLevelEnabled('info')) request.pinClientIp();
      if (response.stream && !aborted) {
        writeStreamedResponse(res, response, response.stream, request.requestId, () => aborted)
          .catch((error: unknown) => {
            // The status is out already: all that can be done is to cut the connection.
            logger.error({ requestId: request.requestId, err: error }, 'streamed response failed');
            if (!aborted) res.close();
          })
          .finally(() => record(response));
        return;
      }
      if (response.stream && aborted) discard(response.stream);
      if (!aborted) writeResponse(res, response, request.requestId, draining);
      record(response);
    };
    const record = (response: RoutedResponse) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = KNOWN_METHODS.has(request.method) ? request.method : 'OTHER';
      options.metrics.http.record(
        { method, route: response.routeLabel, status: String(response.status) },
        seconds,
      );
      if (logger.isLevelEnabled('info')) {
        logger.info(
          {
            requestId: request.requestId,
            method: request.method,
            path: request.path,
            route: response.routeLabel,
            status: response.status,
            ms: seconds * 1e3,
            ip: request.clientIp,
            aborted,
            ...(response.traceparent && traceIdsOf(response.traceparent)),
          },
          'request',
        );
      }
      if (--inFlight === 0 && drained) drained();
    };
    const dispatch = (body: Uint8Array | undefined, stream?: RequestBodyStream) => {
      request.body = body;
      if (stream) request.bodyStream = stream;
      const respond = (response: RoutedResponse) =>
        finish(stream && !stream.complete ? { ...response, closeConnection: true } : response);
      const response = settle(
        () => options.dispatch(request),
        (answer) => answer,
        (error) => dispatchFailed(logger, request.requestId, error),
      );
      if (!isPromise(response)) {
        respond(response);
        return;
      }
      // The answer comes after this uWS callback, perhaps after an abort: from then on the
      // response can no longer tell the client address, so whoever asks later gets it from here.
      request.pinClientIp();
      void response.then(respond);
    };

    const bodyless =
      BODYLESS.has(request.method) ||
      (!request.headers.has('content-length') && !request.headers.has('transfer-encoding'));
    // Only requests with a body pay for the route lookup.
    const bodyLimit =
      (bodyless ? undefined : options.maxBodyBytesOf?.(request.method, request.path)) ??
      options.maxBodyBytes;
    const declaredLength = Number(request.headers.get('content-length') ?? '0');
    if (declaredLength > bodyLimit) {
      finish(tooLarge(bodyLimit));
      return;
    }
    if (bodyless) {
      dispatch(undefined);
      return;
    }
    if (options.streamsBody?.(request.method, request.path, request.headers)) {
      bodyStream = new RequestBodyStream(res, bodyLimit);
      const stream = bodyStream;
      // An answer given before the whole body arrived (a refusal) cannot leave the rest unread on a kept connection.
      dispatch(undefined, stream);
      return;
    }
    readBody(res, bodyLimit, (body) => {
      if (body === 'too-large') finish(tooLarge(bodyLimit));
      else dispatch(body);
    });
  });

  const listenSocket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(options.host, options.port, (socket) =>
      socket
        ? resolve(socket)
        : reject(new Error(`cannot listen on ${options.host}:${options.port}`)),
    );
  });
  const port = uWS.us_socket_local_port(listenSocket);

  return {
    port,
    async close(timeoutMs) {
      draining = true;
      uWS.us_listen_socket_close(listenSocket);
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, timeoutMs).unref();
        });
      }
      // close() resets every remaining socket, which would discard responses still in kernel
      // buffers: give the last ones a moment to leave. The native addon has close() (it also
      // ends idle keep-alive and WebSocket connections); the package's typings lag behind it.
      await new Promise((resolve) => setTimeout(resolve, FLUSH_GRACE_MS));
      (app as TemplatedApp & { close(): void }).close();
    },
  };
}

function dispatchFailed(logger: Logger, requestId: string, error: unknown): RoutedResponse {
  logger.error({ requestId, err: error }, 'dispatch failed');
  return {
    ...jsonResponse(500, { success: false, error: 'Internal server error', code: 'INTERNAL' }),
    routeLabel: 'error',
  };
}

function readBody(
  res: HttpResponse,
  limit: number,
  done: (body: Uint8Array | 'too-large') => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  res.onData((chunk, isLast) => {
    if (refused) return;
    size += chunk.byteLength;
    if (size > limit) {
      refused = true;
      done('too-large');
      return;
    }
    // uWS reuses the chunk's memory after this callback: copy it.
    chunks.push(Buffer.from(Buffer.from(chunk)));
    if (isLast) done(Buffer.concat(chunks, size));
  });
}

function tooLarge(limit: number): RoutedResponse {
  const body = {
    success: false,
    error: `The request body exceeds ${limit} bytes`,
    code: 'PAYLOAD_TOO_LARGE',
  };
  // The unread rest of the body cannot be skipped reliably: end the connection.
  return { ...jsonResponse(413, body), closeConnection: true, routeLabel: 'unmatched' };
}

function writeResponse(
  res: HttpResponse,
  response: HttpResponseData,
  requestId: string,
  closing: boolean,
): void {
  res.cork(() => {
    // uWS writes `200 OK` itself when no status was written: one JS-to-native call less.
    if (response.status !== 200) res.writeStatus(statusLine(response.status));
    res.writeHeader('X-Request-Id', requestId);
    for (const [name, value] of response.headers) res.writeHeader(name, value);
    // uWS writes `Connection: close` itself when asked to close.
    const close = closing || response.closeConnection === true;
    if (response.status === 304 && NATIVE) {
      // A 304 has no body and must not claim one of 0 bytes (RFC 9110, section 8.6). The
      // addon writes no Content-Length only for endWithoutBody() without arguments (any first
      // argument is taken for a length), so closing is asked of the client by header; a
      // draining server resets what is left when it closes. (The JS fallback lacks this call,
      // and Node's own server already sends a 304 without a length.)
      if (close) res.writeHeader('Connection', 'close');
      res.endWithoutBody();
    } else res.end(response.body, close);
  });
}

/** `trace_id` and `span_id` of a W3C `traceparent` (`00-<32 hex>-<16 hex>-<flags>`). */
function traceIdsOf(traceparent: string): { trace_id: string; span_id: string } {
  return { trace_id: traceparent.slice(3, 35), span_id: traceparent.slice(36, 52) };
}

/**
 * A response body the client left before it could be sent: its source (an open file) is closed
 * now rather than whenever garbage collection finds it. Sources are Node streams (media
 * downloads); an iterator that was never started has nothing open.
 */
function discard(stream: SizedStream): void {
  const source = stream.chunks as Partial<{ destroy(): void }>;
  if (typeof source.destroy === 'function') source.destroy();
}
