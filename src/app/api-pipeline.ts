/**
 * Wraps every API service in the RPC middleware chain once. The result feeds both the REST
 * gateway (handlers by method) and the Connect router (gRPC, gRPC-Web, Connect).
 */
import type { DescMethod } from '@bufbuild/protobuf';
import type { ConnectRouter, MethodImpl } from '@connectrpc/connect';
import { apiServices, maxRequestBytesOf } from '../platform/api/api-services.js';
import type {
  PartialServiceImpl,
  RpcMiddleware,
  UnaryHandler,
  WrappedService,
} from '../platform/rpc/rpc-pipeline.js';
import { wrapService } from '../platform/rpc/rpc-pipeline.js';

export interface ApiPipeline {
  readonly services: readonly WrappedService[];
  readonly handlersByMethod: ReadonlyMap<DescMethod, UnaryHandler>;
  register(router: ConnectRouter): void;
}

export function buildApiPipeline(
  implementations: ReadonlyMap<string, PartialServiceImpl>,
  middlewares: readonly RpcMiddleware[],
): ApiPipeline {
  const services = apiServices.map((service) =>
    wrapService(service, implementations.get(service.typeName) ?? {}, middlewares),
  );
  const handlersByMethod = new Map<DescMethod, UnaryHandler>();
  for (const { service, handlers } of services) {
    for (const method of service.methods) {
      const handler = handlers.get(method.localName);
      if (handler) handlersByMethod.set(method, handler);
    }
  }
  return {
    services,
    handlersByMethod,
    register(router) {
      for (const [method, handler] of handlersByMethod) {
        // An RPC with its own body limit (media uploads) gets it; the others keep the server's.
        const readMaxBytes = maxRequestBytesOf(method);
        router.rpc(
          method,
          handler as MethodImpl<DescMethod>,
          readMaxBytes === undefined ? {} : { readMaxBytes },
        );
      }
    },
  };
}
