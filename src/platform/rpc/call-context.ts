/**
 * What every RPC knows about the call it serves, whichever transport brought it (REST gateway,
 * gRPC, gRPC-Web or Connect). Transports fill it in before the pipeline runs.
 */
import { createContextKey } from '@connectrpc/connect';
import type { HandlerContext } from '@connectrpc/connect';
import type { ApiGeneration } from '../api/api-versions.js';
import type { Logger } from '../logging/logger.js';

export type Transport = 'rest' | 'grpc' | 'grpc-web' | 'connect';

export interface CallInfo {
  /** Accepted from X-Request-Id when well-formed, generated otherwise; echoed and logged. */
  readonly requestId: string;
  /** The client's address as the edge determined it. */
  readonly clientIp: string;
  readonly transport: Transport;
  /** A logger bound to this call's request id. */
  readonly logger: Logger;
  /** The REST API generation of the path (v1 or the deprecated unversioned one); undefined on RPC transports. */
  readonly generation?: ApiGeneration;
}

export const callInfoKey = createContextKey<CallInfo | undefined>(undefined, {
  description: 'call info',
});

/** The call info of a running RPC. */
export function callInfoOf(context: HandlerContext): CallInfo {
  const info = context.values.get(callInfoKey);
  if (!info) throw new Error('call info missing: the transport did not set it');
  return info;
}

/** Where the client's address comes from: the address itself, or something that reads it when asked. */
export type ClientIpSource = string | { readonly clientIp: string };

/**
 * Makes the call info of a new call. The request-scoped child logger is created on first use:
 * most calls never log, and a child logger per call is measurable on small RPCs. The client
 * address is read from its source on first use too: the REST edge reads it from the socket
 * only when a call needs it (see http-server.ts).
 */
export function callInfo(
  init: Omit<CallInfo, 'logger' | 'clientIp'> & { baseLogger: Logger; clientIp: ClientIpSource },
): CallInfo {
  return new LazyCallInfo(
    init.requestId,
    init.clientIp,
    init.transport,
    init.baseLogger,
    init.generation,
  );
}

class LazyCallInfo implements CallInfo {
  private child: Logger | undefined;

  constructor(
    readonly requestId: string,
    private readonly clientIpSource: ClientIpSource,
    readonly transport: Transport,
    private readonly baseLogger: Logger,
    readonly generation: ApiGeneration | undefined,
  ) {}

  get clientIp(): string {
    return typeof this.clientIpSource === 'string'
      ? this.clientIpSource
      : this.clientIpSource.clientIp;
  }

  get logger(): Logger {
    this.child ??= this.baseLogger.child({ requestId: this.requestId });
    return this.child;
  }
}
