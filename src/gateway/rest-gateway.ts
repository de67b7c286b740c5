/**
 * The in-process REST gateway: what Envoy's gRPC-JSON transcoder does in the cluster, done from
 * the same descriptors. It is independent of the HTTP server, which hands it plain requests.
 */
import type { DescMessage, DescMethod, JsonValue, MessageInitShape } from '@bufbuild/protobuf';
import { createContextValues } from '@connectrpc/connect';
import type { IncomingRequest, RoutedResponse } from '../server/http-message.js';
import { Code } from '@connectrpc/connect';
import { maxRequestBytesOf, takesStreamedBody } from '../platform/api/api-services.js';
import { apiError, invalidArgument } from '../platform/errors/api-error.js';
import { renderError } from '../platform/errors/http-status.js';
import { callInfo, callInfoKey } from '../platform/rpc/call-context.js';
import { isPromise, settle } from '../platform/rpc/maybe-promise.js';
import type { MaybePromise } from '../platform/rpc/maybe-promise.js';
import { streamedBodyKey, streamedResponseKey } from '../platform/rpc/streamed-body.js';
import type { StreamedBody, StreamedResponse } from '../platform/rpc/streamed-body.js';
import type { UnaryHandler } from '../platform/rpc/rpc-pipeline.js';
import { RestHandlerContext } from './rest-handler-context.js';
import { Router } from './routing/router.js';
import {
  runInSpan,
  serverSpanParent,
  startServerSpan,
  traceparentOf,
  tracingOn,
} from '../platform/tracing/spans.js';
import type { HttpRoute } from './routing/route-table.js';
import { requestMessage } from './transcoding/request-message.js';
import { discard, notModifiedHeaders } from './transcoding/not-modified.js';
import { HTTP_BODY, responseBody } from './transcoding/response-body.js';
import { acceptedVersion } from './versioning/accept-version.js';
import { generationOfPath, versionHeaders } from './versioning/version-headers.js';

export interface GatewayOptions {
  readonly legacySunset: Date;
}

export class RestGateway {
  private readonly router: Router;

  constructor(
    routes: readonly HttpRoute[],
    private readonly handlers: ReadonlyMap<DescMethod, UnaryHandler>,
    private readonly options: GatewayOptions,
  ) {
    this.router = new Router(routes);
  }

  /** The body limit of the route a request goes to, when its RPC declares one (`max_request_bytes`). */
  maxRequestBytes(method: string, path: string): number | undefined {
    const match = this.router.match(method, path);
    return match.kind === 'found' ? maxRequestBytesOf(match.route.method) : undefined;
  }

  /** Whether a request's body is handed to its RPC as a stream: a non-JSON body on a `streamed_body` route. */
  streamsBody(method: string, path: string, headers: ReadonlyMap<string, string>): boolean {
    if (isJson(headers.get('content-type'))) return false;
    const match = this.router.match(method, path);
    return match.kind === 'found' && takesStreamedBody(match.route.method);
  }

  /** The response of a request; synchronous when its RPC answered synchronously (maybe-promise.ts). */
  handle(request: IncomingRequest): MaybePromise<RoutedResponse> {
    const match = this.router.match(request.method, request.path);
    if (match.kind !== 'found') {
      const headers = versionHeaders(
        generationOfPath(request.path),
        request.path,
        this.options.legacySunset,
      );
      if (match.kind === 'not-found') {
        return failure(
          apiError(Code.NotFound, 'NOT_FOUND', `No route for ${request.method} ${request.path}`),
          headers,
          'unmatched',
        );
      }
      headers.push(['Allow', match.allowed.join(', ')]);
      const error = apiError(
        Code.InvalidArgument,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed on ${request.path}`,
      );
      return failure(error, headers, 'unmatched');
    }
    const { route, variables } = match;
    const headers = versionHeaders(route.generation, request.path, this.options.legacySunset);
    const accepted = acceptedVersion(request.headers.get('accept'));
    if (accepted.kind === 'unsupported') {
      const error = apiError(
        Code.InvalidArgument,
        'UNSUPPORTED_API_VERSION',
        `API version ${accepted.version} is not served`,
      );
      return failure(error, headers, route.template);
    }
    const handler = this.handlers.get(route.method) as UnaryHandler;
    const info = callInfo({
      requestId: request.requestId,
      // The request reads the address only if the call asks (per-IP limits, sign-in, CAPTCHA).
      clientIp: request,
      transport: 'rest',
      baseLogger: request.logger,
      generation: route.generation,
    });
    const values = createContextValues().set(callInfoKey, info);
    if (request.bodyStream) values.set(streamedBodyKey, streamedBody(request, request.bodyStream));
    const streamedResponse: StreamedResponse = {};
    if (route.method.output.typeName === HTTP_BODY)
      values.set(streamedResponseKey, streamedResponse);
    const context = new RestHandlerContext(
      route.service,
      route.method,
      request.method,
      request.path,
      request.headers,
      values,
    );
    const call = () => {
      const query = request.query === '' ? NO_QUERY : new URLSearchParams(request.query);
      const input = requestMessage(route, {
        variables,
        query,
        body: request.bodyStream ? undefined : parseBody(request),
        queryFillsBody: request.bodyStream !== undefined,
      });
      return handler(input, context);
    };
    const answer = (result: MessageInitShape<DescMessage>): RoutedResponse => {
      const output = responseBody(route, result);
      const contentType =
        accepted.kind === 'supported' && output.contentType === 'application/json'
          ? accepted.mediaType
          : output.contentType;
      const serviceHeaders = context.headersToSend();
      headers.push(['Content-Type', contentType], ...serviceHeaders);
      const unchanged =
        output.contentType !== 'application/json'
          ? notModifiedHeaders(request.method, request.headers.get('if-none-match'), headers)
          : undefined;
      if (unchanged) {
        discard(streamedResponse.body);
        return { status: 304, headers: unchanged, body: '', routeLabel: route.template };
      }
      // A raw body the service marked with Content-Range is one range of it (media downloads).
      const partial =
        output.contentType !== 'application/json' &&
        serviceHeaders.some(([name]) => name === 'content-range');
      const status = partial ? 206 : 200;
      if (streamedResponse.body)
        return {
          status,
          headers,
          body: '',
          stream: streamedResponse.body,
          routeLabel: route.template,
        };
      return { status, headers, body: output.body, routeLabel: route.template };
    };
    // Checked first: with tracing off a request allocates nothing for it.
    const span = tracingOn() ? gatewaySpan(request, route.template) : undefined;
    const traceparent = span && traceparentOf(span.span);
    if (traceparent) headers.push(['traceparent', traceparent]);
    const traced = runInSpan(
      span,
      () =>
        settle(call, answer, (error) =>
          failure(error, [...headers, ...context.headersToSend()], route.template),
        ),
      (active, { status }) => active.setAttribute('http.response.status_code', status),
    );
    // The access log line, written after the span, names the trace too.
    const response =
      traceparent === undefined
        ? traced
        : settle(
            () => traced,
            (value) => ({ ...value, traceparent }),
            (error) => {
              throw error;
            },
          );
    if (isPromise(response)) return response.finally(() => context.complete());
    context.complete();
    return response;
  }
}

/** The request's server span, under the caller's `traceparent` when it sent one. */
function gatewaySpan(request: IncomingRequest, route: string) {
  const parent = serverSpanParent((name) => request.headers.get(name));
  if (!parent) return undefined;
  return startServerSpan(`${request.method} ${route}`, parent, {
    'http.request.method': request.method,
    'http.route': route,
  });
}

/** Most calls have no query string: they share one empty (and never modified) parameter list. */
const NO_QUERY = new URLSearchParams();

const isJson = (contentType: string | undefined) =>
  contentType === undefined || /^application\/([\w.+-]*\+)?json\b/i.test(contentType);

function streamedBody(request: IncomingRequest, chunks: AsyncIterable<Uint8Array>): StreamedBody {
  const declared = request.headers.get('content-length');
  return {
    contentType: request.headers.get('content-type') ?? '',
    declaredLength: declared === undefined ? undefined : Number(declared),
    chunks,
  };
}

function parseBody(request: IncomingRequest): JsonValue | undefined {
  if (!request.body || request.body.byteLength === 0) return undefined;
  const contentType = request.headers.get('content-type');
  if (!isJson(contentType)) {
    throw apiError(
      Code.InvalidArgument,
      'UNSUPPORTED_MEDIA_TYPE',
      'The body must be application/json',
    );
  }
  try {
    return JSON.parse(
      Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength).toString(
        'utf8',
      ),
    ) as JsonValue;
  } catch {
    throw invalidArgument('Malformed JSON body', 'MALFORMED_JSON');
  }
}

function failure(error: unknown, headers: [string, string][], routeLabel: string): RoutedResponse {
  const rendered = renderError(error);
  return {
    status: rendered.status,
    headers: [...headers, ...rendered.headers, ['Content-Type', 'application/json']],
    body: JSON.stringify(rendered.body),
    routeLabel,
  };
}
