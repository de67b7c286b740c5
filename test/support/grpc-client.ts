/**
 * A native gRPC client (@grpc/grpc-js + @grpc/proto-loader) built from the .proto files, as an
 * internal service would use it: no generated TypeScript, nothing shared with the server code.
 */
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { fileURLToPath } from 'node:url';
import type { Json } from './json.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const includeDirs = [
  `${root}proto`,
  `${root}third_party`,
  `${root}node_modules/google-proto-files`,
];

/** A client of a service loaded from its .proto: its unary methods by name, called as grpc-js does. */
export type GrpcServiceClient = grpc.Client &
  Record<
    string,
    (
      request: object,
      metadata: grpc.Metadata,
      callback: (error: grpc.ServiceError | null, response: never) => void,
    ) => grpc.ClientUnaryCall
  >;

export function grpcClient(
  address: string,
  protoFile: string,
  serviceName: string,
): GrpcServiceClient {
  const definition = protoLoader.loadSync(protoFile, {
    includeDirs,
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(definition);
  const Service = serviceName
    .split('.')
    .reduce<unknown>(
      (node, part) => (node as grpc.GrpcObject)[part],
      pkg,
    ) as grpc.ServiceClientConstructor;
  return new Service(address, grpc.credentials.createInsecure()) as GrpcServiceClient;
}

/**
 * The protobuf encoding of a request message as this client sends it (the request serializer
 * of `method` of `serviceName`), for signatures over the encoded request.
 */
export function requestEncoder(
  protoFile: string,
  serviceName: string,
  method: string,
): (request: object) => Buffer {
  const definition = protoLoader.loadSync(protoFile, {
    includeDirs,
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
  });
  return (
    definition[serviceName] as unknown as Record<string, grpc.MethodDefinition<object, unknown>>
  )[method]!.requestSerialize;
}

/** Calls a unary method; resolves with the response and the trailing metadata, or rejects with the ServiceError. */
export function unary<T = Json>(
  client: GrpcServiceClient,
  method: string,
  request: object,
  metadata = new grpc.Metadata(),
) {
  return new Promise<T>((resolve, reject) => {
    client[method]!(request, metadata, (error: grpc.ServiceError | null, response: T) =>
      error ? reject(error) : resolve(response),
    );
  });
}

/** Call metadata carrying an access token, as a client of the native gRPC surface sends it. */
export function bearerMetadata(accessToken: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${accessToken}`);
  return metadata;
}

export { grpc };
