/**
 * The Envoy edge of the chart, run on a request: the Lua filters of the rendered bootstrap, in
 * its order, executed under LuaJIT, around a model of the gRPC-JSON transcoder that calls the
 * real api pod (transcoder-model.ts). Envoy's own replies (unknown route 404, body too large 413)
 * are the bootstrap's local_reply_config mappers, passed back through the response hooks of the
 * filters the request went through before the replying filter.
 *
 * Not modelled (the cases under test do not reach them): the local rate limit filter (only its
 * 429 local reply exists, tested by the chart tests), request bodies the transcoder cannot parse,
 * respond() from a filter, streaming responses.
 */
import { basename } from 'node:path';
import type { EnvoyConfigMap } from '../envoy-config.js';
import { httpConnectionManager, routeFor } from '../envoy-config.js';
import type { FilterMetadata, HeaderList, StreamState } from './run-lua-filter.js';
import { runLuaHook } from './run-lua-filter.js';
import { TranscoderModel, header } from './transcoder-model.js';
import type { EdgeRequest } from './transcoder-model.js';
import type { Json } from '../../../support/json.js';

const LUA_FILTER = 'type.googleapis.com/envoy.extensions.filters.http.lua.v3.Lua';
const TRANSCODER = 'envoy.filters.http.grpc_json_transcoder';

export interface EdgeResponse {
  readonly status: number;
  /** Response headers without pseudo-headers, lower-case. */
  readonly headers: HeaderList;
  readonly body: string;
}

interface LuaFilter {
  readonly name: string;
  readonly source: string;
}

export class EnvoyEdge {
  private readonly hcm: Json;
  /** The Lua filters before the transcoder, in chain order (the request goes through them first). */
  private readonly luaFilters: LuaFilter[];
  private readonly transcoder: TranscoderModel;

  constructor(
    private readonly config: EnvoyConfigMap,
    grpcAddress: string,
  ) {
    this.hcm = httpConnectionManager(config.bootstrap);
    const filters = this.hcm.http_filters as { name: string; typed_config: Json }[];
    const transcoderAt = filters.findIndex((filter) => filter.name === TRANSCODER);
    const luaAfterTranscoder = filters
      .slice(transcoderAt)
      .some((filter) => filter.typed_config['@type'] === LUA_FILTER);
    if (transcoderAt < 0 || luaAfterTranscoder)
      throw new Error('the edge model expects every Lua filter before the transcoder');
    this.luaFilters = filters.slice(0, transcoderAt).flatMap((filter) => {
      if (filter.typed_config['@type'] !== LUA_FILTER) return [];
      const file = basename(filter.typed_config.default_source_code.filename as string);
      const source = config.data[file];
      if (source === undefined) throw new Error(`the Envoy ConfigMap lacks ${file}`);
      return [{ name: filter.name, source }];
    });
    this.transcoder = new TranscoderModel({
      grpcAddress,
      config: filters[transcoderAt]!.typed_config,
    });
  }

  async handle(request: EdgeRequest): Promise<EdgeResponse> {
    let stream: StreamState = {
      headers: [
        [':method', request.method],
        [':path', request.path],
        [':authority', 'edge'],
        ...lowerCased(request.headers),
      ],
      dynamicMetadata: {},
    };
    for (const filter of this.luaFilters) {
      const result = runLuaHook({
        ...this.hookOf(filter, stream.headers),
        phase: 'request',
        stream,
      });
      if (result.responded) throw new Error(`respond() from ${filter.name} is not modelled`);
      stream = result;
    }
    const requestHeaders = stream.headers;
    const outcome = await this.transcoder.call(request, header(requestHeaders, ':path') as string);
    let response: StreamState =
      outcome.kind === 'response'
        ? { ...outcome.stream, dynamicMetadata: stream.dynamicMetadata }
        : { ...this.localReply(outcome.status, stream), dynamicMetadata: stream.dynamicMetadata };
    for (const filter of [...this.luaFilters].reverse()) {
      response = runLuaHook({
        ...this.hookOf(filter, requestHeaders),
        phase: 'response',
        stream: response,
      });
    }
    return {
      status: Number(header(response.headers, ':status')),
      headers: response.headers.filter(([key]) => !key.startsWith(':')),
      body: response.body ?? '',
    };
  }

  /** The filter's source and the metadata of the route the (possibly rewritten) request path selects. */
  private hookOf(
    filter: LuaFilter,
    requestHeaders: HeaderList,
  ): { source: string; filterName: string; routeMetadata: FilterMetadata } {
    const path = (header(requestHeaders, ':path') as string).split('?')[0] as string;
    const route = routeFor(this.config.bootstrap, path);
    return {
      source: filter.source,
      filterName: filter.name,
      routeMetadata: route?.metadata?.filter_metadata ?? {},
    };
  }

  /** Envoy's own reply with `status`, as the bootstrap's local_reply_config reshapes it. */
  private localReply(status: number, request: StreamState): Omit<StreamState, 'dynamicMetadata'> {
    const mapper = (this.hcm.local_reply_config.mappers as Json[]).find(
      (m) => m.filter.status_code_filter.comparison.value.default_value === status,
    );
    if (!mapper) throw new Error(`no local_reply_config mapper for ${status}`);
    const format = mapper.body_format_override;
    const body = JSON.stringify(
      Object.fromEntries(
        Object.entries(format.json_format as Record<string, unknown>).map(([key, value]) => [
          key,
          typeof value === 'string' ? substituted(value, request) : value,
        ]),
      ),
    );
    return {
      headers: [
        [':status', String(status)],
        ['content-type', format.content_type],
        ['content-length', String(Buffer.byteLength(body))],
      ],
      body,
    };
  }
}

/** Envoy's %REQ(header)% and %DYNAMIC_METADATA(namespace:key)% command operators ('-' when absent). */
function substituted(template: string, request: StreamState): string {
  return template.replace(
    /%([A-Z_]+)(?:\(([^)]*)\))?%/g,
    (operator, name: string, argument = '') => {
      if (name === 'REQ') return header(request.headers, argument.toLowerCase()) ?? '-';
      const [namespace = '', key = ''] = argument.split(':');
      if (name === 'DYNAMIC_METADATA') {
        const value = request.dynamicMetadata[namespace]?.[key];
        return value == null ? '-' : typeof value === 'string' ? value : JSON.stringify(value);
      }
      throw new Error(`${operator} is not modelled`);
    },
  );
}

const lowerCased = (headers: Record<string, string>): HeaderList =>
  Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]);
