/**
 * Middleware that gives every RPC its span. On gRPC, gRPC-Web and Connect the RPC is the request
 * itself: a server span under the caller's `traceparent`, whose own `traceparent` goes back in
 * the response headers. Behind the REST gateway, which made the request's server span, it is a
 * child of that span (and nothing when the gateway's span was sampled out or tracing is off).
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { ConnectError } from '@connectrpc/connect';
import {
  runInSpan,
  startChildSpan,
  serverSpanParent,
  startServerSpan,
  traceparentOf,
  tracingOn,
} from '../tracing/spans.js';
import type { HeaderLookup } from '../tracing/spans.js';
import { callInfoOf } from './call-context.js';
import type { RpcMiddleware } from './rpc-pipeline.js';

export function traceRpc(): RpcMiddleware {
  return ({ method, context }, next) => {
    if (!tracingOn()) return next();
    const transport = callInfoOf(context).transport;
    const active =
      transport === 'rest'
        ? startChildSpan(nameOf(method), rpcAttributes(method, transport))
        : grpcSpan(method, transport, (header) => context.requestHeader.get(header));
    if (!active) return next();
    if (transport !== 'rest') context.responseHeader.set('traceparent', traceparentOf(active.span));
    return runInSpan(active, () =>
      Promise.resolve(next()).catch((error: unknown) => {
        if (error instanceof ConnectError)
          active.span.setAttribute('rpc.grpc.status_code', error.code);
        throw error;
      }),
    );
  };
}

function grpcSpan(method: DescMethod, transport: string, headers: HeaderLookup) {
  const parent = serverSpanParent(headers);
  return parent && startServerSpan(nameOf(method), parent, rpcAttributes(method, transport));
}

const nameOf = (method: DescMethod) => `${method.parent.typeName}/${method.name}`;

function rpcAttributes(method: DescMethod, transport: string) {
  return {
    'rpc.system': 'grpc',
    'rpc.service': method.parent.typeName,
    'rpc.method': method.name,
    'rpc.transport': transport,
    'rpc.grpc.status_code': 0,
  };
}
