/**
 * The RPC port: gRPC (HTTP/2), gRPC-Web and Connect (HTTP/1.1 or HTTP/2) on one cleartext port.
 * Node 20 ignores `allowHTTP1` on cleartext HTTP/2 servers, so each new connection is sniffed:
 * the HTTP/2 preface goes to the HTTP/2 server, anything else to the HTTP/1.1 server.
 */
import http from 'node:http';
import http2 from 'node:http2';
import net from 'node:net';
import type { BlockList } from 'node:net';
import type { ConnectRouter } from '@connectrpc/connect';
import { createContextValues } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import type { Logger } from '../platform/logging/logger.js';
import { callInfo, callInfoKey } from '../platform/rpc/call-context.js';
import type { Transport } from '../platform/rpc/call-context.js';
import { requestIdFrom } from '../platform/rpc/request-id.js';
import { normaliseIp, resolveClientIp } from '../server/trusted-proxies.js';
import { restErrorMetadata } from './rest-error-metadata.js';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0');

export interface GrpcServerOptions {
  readonly host: string;
  readonly port: number;
  readonly logger: Logger;
  readonly maxBodyBytes: number;
  /** Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES): Envoy calls this port for REST clients. */
  readonly trustedProxies: BlockList | undefined;
  readonly routes: (router: ConnectRouter) => void;
}

export interface RunningGrpcServer {
  readonly port: number;
  /** Stops accepting, lets in-flight calls finish (at most `timeoutMs`), then closes. */
  close(timeoutMs: number): Promise<void>;
}

export async function startGrpcServer(options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const shutdown = new AbortController();
  const handler = connectNodeAdapter({
    routes: options.routes,
    readMaxBytes: options.maxBodyBytes,
    shutdownSignal: shutdown.signal,
    interceptors: [restErrorMetadata],
    contextValues: (req) => {
      const info = callInfo({
        requestId: requestIdFrom(headerValue(req.headers['x-request-id'])),
        clientIp: clientIpOf(req, options.trustedProxies),
        transport: transportOf(headerValue(req.headers['content-type'])),
        baseLogger: options.logger,
      });
      return createContextValues().set(callInfoKey, info);
    },
  });
  // Counted here because the HTTP servers never listen themselves and so cannot report drained.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const counted = (
    req: http.IncomingMessage | http2.Http2ServerRequest,
    res: http.ServerResponse | http2.Http2ServerResponse,
  ) => {
    inFlight++;
    res.once('close', () => {
      if (--inFlight === 0) drained?.();
    });
    handler(req, res);
  };
  const h2 = http2.createServer(counted);
  const h1 = http.createServer(counted);
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });

  const front = net.createServer((socket) => {
    socket.once('readable', () => {
      const head = (socket.read(HTTP2_PREFACE.length) ?? socket.read()) as Buffer | null;
      if (head) socket.unshift(head);
      const target = head && head.subarray(0, HTTP2_PREFACE.length).equals(HTTP2_PREFACE) ? h2 : h1;
      target.emit('connection', socket);
    });
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    front.once('error', reject);
    front.listen(options.port, options.host, () => resolve());
  });
  const port = (front.address() as net.AddressInfo).port;

  return {
    port,
    async close(timeoutMs) {
      front.close();
      for (const session of sessions) session.close();
      h1.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          drained = resolve;
          setTimeout(resolve, timeoutMs).unref();
        });
      }
      shutdown.abort();
      for (const session of sessions) session.destroy();
      h1.closeAllConnections();
    },
  };
}

/** The socket peer, or the client behind it when the peer is a trusted proxy (same rule as the HTTP port). */
function clientIpOf(
  req: http.IncomingMessage | http2.Http2ServerRequest,
  trusted: BlockList | undefined,
): string {
  const peer = normaliseIp(req.socket.remoteAddress ?? '') ?? 'unknown';
  const forwarded = req.headers['x-forwarded-for'];
  return resolveClientIp(
    peer,
    Array.isArray(forwarded) ? forwarded.join(', ') : forwarded,
    trusted,
  );
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function transportOf(contentType: string | undefined): Transport {
  if (contentType?.startsWith('application/grpc-web')) return 'grpc-web';
  if (contentType?.startsWith('application/grpc')) return 'grpc';
  return 'connect';
}
