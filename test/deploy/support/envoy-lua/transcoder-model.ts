/**
 * What Envoy's gRPC-JSON transcoder does around the Lua filters, modelled from its source
 * (source/extensions/filters/http/grpc_json_transcoder/json_transcoder_filter.cc) with the
 * options of the rendered bootstrap, so that the filters get the inputs a real edge gives them.
 * The transcoder itself is not under test here: its routes are proven equal to the in-process
 * gateway's in envoy-routes.test.ts, and the request message is built with the gateway's own
 * transcoding (the same google.api.http rules).
 *
 * - Request: only the versioned templates of the protos are known (the unversioned alias is the
 *   Lua filter's work); an unknown method or path is Envoy's local 404 (reject_unknown_method), a
 *   body over max_request_body_size its local 413.
 * - Response: headers become application/json; a message is printed as JSON (defaults printed,
 *   JSON names); a failed call without a message gets, with convert_grpc_status, the status of
 *   its gRPC code and a google.rpc.Status JSON body, and its trailers go on to the next filter.
 */
import { fromBinary, toBinary, toJsonString } from '@bufbuild/protobuf';
import type { DescMessage } from '@bufbuild/protobuf';
import { buildRouteTable } from '../../../../src/gateway/routing/route-table.js';
import type { HttpRoute } from '../../../../src/gateway/routing/route-table.js';
import { Router } from '../../../../src/gateway/routing/router.js';
import { requestMessage } from '../../../../src/gateway/transcoding/request-message.js';
import { apiServices } from '../../../../src/platform/api/api-services.js';
import { LEGACY } from '../../../../src/platform/api/api-versions.js';
import { grpcExchange, grpcMessages } from './grpc-upstream.js';
import type { HeaderList, StreamState } from './run-lua-filter.js';

/** Envoy's Grpc::Utility::grpcToHttpStatus, by gRPC code. */
const HTTP_STATUS_OF_GRPC = [
  200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401,
];

/** Request headers that do not travel to the upstream as gRPC metadata. */
const NOT_FORWARDED = new Set([
  ':method',
  ':path',
  ':authority',
  ':scheme',
  'host',
  'content-type',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

export interface TranscoderOptions {
  readonly grpcAddress: string;
  /** The transcoder's typed_config from the rendered bootstrap. */
  readonly config: {
    convert_grpc_status?: boolean;
    max_request_body_size?: number;
    print_options?: Record<string, boolean>;
  };
}

export interface EdgeRequest {
  readonly method: string;
  /** Path and query, as the client sent them. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export type TranscoderOutcome =
  | { kind: 'local-reply'; status: number }
  | { kind: 'response'; stream: Omit<StreamState, 'dynamicMetadata'> };

export class TranscoderModel {
  private readonly router = new Router(
    buildRouteTable(apiServices).filter((route) => route.generation !== LEGACY),
  );

  constructor(private readonly options: TranscoderOptions) {
    const print = options.config.print_options ?? {};
    // protobuf-es's alwaysEmitImplicit with JSON names is what these options print.
    if (
      print.always_print_primitive_fields !== true ||
      print.preserve_proto_field_names !== false ||
      print.always_print_enums_as_ints !== false
    ) {
      throw new Error('the transcoder print options changed: update the response model');
    }
  }

  /** Sends the request as the transcoder would, given the :path the filters before it left. */
  async call(request: EdgeRequest, pathAfterFilters: string): Promise<TranscoderOutcome> {
    const [path, query = ''] = pathAfterFilters.split('?', 2) as [string, string?];
    const match = this.router.match(request.method, path);
    if (match.kind !== 'found') return { kind: 'local-reply', status: 404 };
    if (
      Buffer.byteLength(request.body ?? '') >
      (this.options.config.max_request_body_size ?? Infinity)
    )
      return { kind: 'local-reply', status: 413 };
    const { route } = match;
    const message = requestMessage(route, {
      variables: match.variables,
      query: new URLSearchParams(query),
      body: request.body ? JSON.parse(request.body) : undefined,
    });
    const headers: HeaderList = [
      [':method', 'POST'],
      [':path', `/${route.service.typeName}/${route.method.name}`],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ['x-envoy-original-path', pathAfterFilters],
      ...Object.entries(request.headers).flatMap(([key, value]): [string, string][] =>
        NOT_FORWARDED.has(key.toLowerCase()) ? [] : [[key.toLowerCase(), value]],
      ),
    ];
    const upstream = await grpcExchange(
      this.options.grpcAddress,
      headers,
      toBinary(route.method.input, message),
    );
    return {
      kind: 'response',
      stream: this.response(route, upstream.headers, upstream.data, upstream.trailers),
    };
  }

  private response(
    route: HttpRoute,
    upstreamHeaders: HeaderList,
    data: Buffer,
    upstreamTrailers: HeaderList | undefined,
  ): Omit<StreamState, 'dynamicMetadata'> {
    if (header(upstreamHeaders, ':status') !== '200')
      throw new Error('a non-gRPC upstream answer is not modelled');
    const trailersOnly = upstreamTrailers === undefined;
    const statusSource = upstreamTrailers ?? upstreamHeaders;
    const grpcStatus = Number(header(statusSource, 'grpc-status'));
    const [message] = grpcMessages(data);
    let headers = upstreamHeaders.filter(([key]) => key !== 'content-type');
    let body: string | undefined;
    let contentType = 'application/json';
    if (message !== undefined) {
      ({ body, contentType } = printed(route.method.output, message));
    }
    const withStatus = (status: number) =>
      headers
        .filter(([key]) => key !== ':status' && key !== 'content-length')
        .concat([[':status', String(status)]]);
    if (message === undefined && grpcStatus !== 0 && this.options.config.convert_grpc_status) {
      // maybeConvertGrpcStatus: a google.rpc.Status as JSON; a trailers-only answer loses its grpc-* headers.
      body = JSON.stringify({
        code: grpcStatus,
        message: decodeURIComponent(header(statusSource, 'grpc-message') ?? ''),
      });
      headers = withStatus(HTTP_STATUS_OF_GRPC[grpcStatus] ?? 500);
      if (trailersOnly) headers = headers.filter(([key]) => !key.startsWith('grpc-'));
    } else {
      headers = withStatus(HTTP_STATUS_OF_GRPC[grpcStatus] ?? 503);
      if (!trailersOnly) {
        headers.push(['grpc-status', String(grpcStatus)]);
        const grpcMessage = header(statusSource, 'grpc-message');
        if (grpcMessage !== undefined) headers.push(['grpc-message', grpcMessage]);
      }
    }
    headers.push(
      ['content-type', contentType],
      ['content-length', String(Buffer.byteLength(body ?? ''))],
    );
    return {
      headers,
      ...(body === undefined ? {} : { body }),
      ...(trailersOnly ? {} : { trailers: upstreamTrailers }),
    };
  }
}

/** The response body the transcoder prints: JSON, or the raw bytes of a google.api.HttpBody. */
function printed(schema: DescMessage, bytes: Uint8Array): { body: string; contentType: string } {
  const message = fromBinary(schema, bytes);
  if (schema.typeName === 'google.api.HttpBody') {
    const httpBody = message as unknown as { contentType: string; data: Uint8Array };
    return { body: Buffer.from(httpBody.data).toString('utf8'), contentType: httpBody.contentType };
  }
  return {
    body: toJsonString(schema, message, { alwaysEmitImplicit: true }),
    contentType: 'application/json',
  };
}

export function header(headers: HeaderList, key: string): string | undefined {
  return headers.find(([name]) => name === key)?.[1];
}
