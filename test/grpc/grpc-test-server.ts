/** A Connect server on HTTP/2 cleartext and a port of its own, for native gRPC clients. */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ConnectRouter } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

export interface TestServer {
  readonly address: string;
  close(): Promise<void>;
}

export async function startServer(routes: (router: ConnectRouter) => void): Promise<TestServer> {
  const server = http2.createServer(connectNodeAdapter({ routes }));
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A grpc-js client of `service` (declared in a proto file under node_modules), typed by the caller. */
export function createClient<T extends grpc.Client>(
  protoFile: string,
  service: string,
  address: string,
): T {
  const path = fileURLToPath(new URL(`../../node_modules/${protoFile}`, import.meta.url));
  const definition = protoLoader.loadSync(path, {
    keepCase: true,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const Client = service
    .split('.')
    .reduce<unknown>(
      (node, name) => (node as Record<string, unknown>)[name],
      grpc.loadPackageDefinition(definition),
    ) as grpc.ServiceClientConstructor;
  return new Client(address, grpc.credentials.createInsecure()) as unknown as T;
}
