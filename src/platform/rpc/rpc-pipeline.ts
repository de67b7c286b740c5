/**
 * The one place where cross-cutting concerns wrap every RPC, for every transport. Each service
 * implementation is wrapped once; the same wrapped functions are registered with the Connect
 * router (gRPC, gRPC-Web, Connect) and called by the REST gateway.
 */
import type { DescMessage, DescMethod, DescService, MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import { notImplemented } from '../errors/api-error.js';
import type { MaybePromise } from './maybe-promise.js';

/** The request message of whichever method a handler serves. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each service's methods take their own request message; `unknown` would make them unassignable (parameters are contravariant)
type AnyRequest = any;

/** A wrapped RPC. It answers synchronously when every layer did (see maybe-promise.ts). */
export type UnaryHandler = (
  request: AnyRequest,
  context: HandlerContext,
) => MaybePromise<MessageInitShape<DescMessage>>;

/**
 * Runs around a handler; calls `next()` to continue, or throws to refuse the call. A middleware
 * with nothing to wait for should pass `next()`'s result on as it is, not wrap it in a promise.
 */
export type RpcMiddleware = (
  call: { method: DescMethod; request: unknown; context: HandlerContext },
  next: () => MaybePromise<MessageInitShape<DescMessage>>,
) => MaybePromise<MessageInitShape<DescMessage>>;

/** A service implementation: any subset of its methods (the rest answer NOT_IMPLEMENTED). */
export type PartialServiceImpl = Record<
  string,
  ((request: AnyRequest, context: HandlerContext) => unknown) | undefined
>;

export interface WrappedService {
  readonly service: DescService;
  /** Every unary method of the service, by local name, wrapped in the middleware chain. */
  readonly handlers: ReadonlyMap<string, UnaryHandler>;
}

export function wrapService(
  service: DescService,
  implementation: PartialServiceImpl,
  middlewares: readonly RpcMiddleware[],
): WrappedService {
  const handlers = new Map<string, UnaryHandler>();
  for (const method of service.methods) {
    if (method.methodKind !== 'unary') continue;
    const impl = implementation[method.localName] ?? unimplemented(method);
    handlers.set(method.localName, chain(method, impl, middlewares));
  }
  return { service, handlers };
}

function chain(
  method: DescMethod,
  impl: (request: AnyRequest, context: HandlerContext) => unknown,
  middlewares: readonly RpcMiddleware[],
): UnaryHandler {
  return (request, context) => {
    const run = (index: number): MaybePromise<MessageInitShape<DescMessage>> => {
      const middleware = middlewares[index];
      if (!middleware) return impl(request, context) as MaybePromise<MessageInitShape<DescMessage>>;
      return middleware({ method, request, context }, () => run(index + 1));
    };
    return run(0);
  };
}

function unimplemented(method: DescMethod) {
  return () => {
    throw notImplemented(`${method.parent.name}.${method.name} is not implemented yet`);
  };
}
