import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type * as grpc from '@grpc/grpc-js';
import * as v1 from '../../src/gen/grpc/reflection/v1/reflection_pb.js';
import * as v1alpha from '../../src/gen/grpc/reflection/v1alpha/reflection_pb.js';
import {
  createReflectionServices,
  reflectedServiceNames,
} from '../../src/grpc/reflection/reflection-services.js';
import { apiDescriptorSet } from '../../src/platform/api/descriptor-set.js';
import { createClient, startServer } from './grpc-test-server.js';
import type { TestServer } from './grpc-test-server.js';

interface ReflectionResponse {
  valid_host: string;
  message_response: string;
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  list_services_response?: { service: { name: string }[] };
  all_extension_numbers_response?: { base_type_name: string; extension_number: number[] };
  error_response?: { error_code: number; error_message: string };
}

type ReflectionClient = grpc.Client & {
  ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionResponse>;
};

/** Sends the requests on one stream and collects one answer per request. */
function ask(client: ReflectionClient, ...requests: object[]): Promise<ReflectionResponse[]> {
  return new Promise((resolve, reject) => {
    const call = client.ServerReflectionInfo();
    const answers: ReflectionResponse[] = [];
    call.on('data', (answer: ReflectionResponse) => answers.push(answer));
    call.on('error', reject);
    call.on('end', () => resolve(answers));
    for (const request of requests) call.write(request);
    call.end();
  });
}

const fileNames = (answer: ReflectionResponse | undefined) =>
  (answer?.file_descriptor_response?.file_descriptor_proto ?? []).map(
    (bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name,
  );

describe('gRPC server reflection', () => {
  let server: TestServer;
  let client: ReflectionClient;
  let alphaClient: ReflectionClient;

  beforeAll(async () => {
    const services = createReflectionServices(apiDescriptorSet());
    server = await startServer((router) => {
      router.service(v1.ServerReflection, services.v1);
      router.service(v1alpha.ServerReflection, services.v1alpha);
    });
    const proto = '@grpc/reflection/build/proto/grpc/reflection';
    client = createClient(
      `${proto}/v1/reflection.proto`,
      'grpc.reflection.v1.ServerReflection',
      server.address,
    );
    alphaClient = createClient(
      `${proto}/v1alpha/reflection.proto`,
      'grpc.reflection.v1alpha.ServerReflection',
      server.address,
    );
  });

  afterAll(async () => {
    client.close();
    alphaClient.close();
    await server.close();
  });

  it('lists the API, health and reflection services', async () => {
    const [answer] = await ask(client, { host: 'h', list_services: '' });
    const names = answer?.list_services_response?.service.map((s) => s.name);
    expect(names).toContain('service.v1.SystemService');
    expect(names).toEqual(
      expect.arrayContaining([
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
      ]),
    );
    expect(names).toEqual([...reflectedServiceNames]);
    expect(answer?.valid_host).toBe('h');
  });

  it('returns the file declaring a service together with its transitive dependencies', async () => {
    const [answer] = await ask(client, { file_containing_symbol: 'service.v1.SystemService' });
    const names = fileNames(answer);
    expect(names[0]).toBe('service/v1/system.proto');
    expect(names).toEqual(
      expect.arrayContaining([
        'google/api/annotations.proto',
        'google/api/http.proto',
        'google/protobuf/descriptor.proto',
        'google/protobuf/struct.proto',
        'service/v1/options.proto',
      ]),
    );
    expect(new Set(names).size).toBe(names.length);
  });

  it('finds methods, messages, fields and enum values, and files by name', async () => {
    const answers = await ask(
      client,
      { file_containing_symbol: 'service.v1.SystemService.GetVersion' },
      { file_containing_symbol: 'service.v1.VersionInfo' },
      { file_containing_symbol: 'service.v1.VersionInfo.current_path' },
      { file_containing_symbol: 'grpc.health.v1.HealthCheckResponse.SERVING' },
      { file_by_filename: 'google/api/http.proto' },
    );
    expect(answers.map((answer) => fileNames(answer)[0])).toEqual([
      'service/v1/system.proto',
      'service/v1/system.proto',
      'service/v1/system.proto',
      'grpc/health/v1/health.proto',
      'google/api/http.proto',
    ]);
  });

  it('answers extension lookups', async () => {
    const [numbers, file] = await ask(
      client,
      { all_extension_numbers_of_type: 'google.protobuf.MethodOptions' },
      {
        file_containing_extension: {
          containing_type: 'google.protobuf.MethodOptions',
          extension_number: 51001,
        },
      },
    );
    expect(numbers?.all_extension_numbers_response?.base_type_name).toBe(
      'google.protobuf.MethodOptions',
    );
    expect(numbers?.all_extension_numbers_response?.extension_number).toEqual(
      expect.arrayContaining([51001, 51002, 72295728]),
    );
    expect(fileNames(file)[0]).toBe('service/v1/options.proto');
  });

  it('answers NOT_FOUND for unknown names and keeps the stream open', async () => {
    const answers = await ask(
      client,
      { file_containing_symbol: 'service.v1.NoSuchThing' },
      { file_by_filename: 'no/such.proto' },
      { all_extension_numbers_of_type: 'service.v1.NoSuchMessage' },
      {
        file_containing_extension: {
          containing_type: 'google.protobuf.MethodOptions',
          extension_number: 1,
        },
      },
      { list_services: '' },
    );
    expect(answers.slice(0, 4).map((answer) => answer.error_response?.error_code)).toEqual([
      5, 5, 5, 5,
    ]);
    expect(answers[4]?.list_services_response?.service.length).toBeGreaterThan(0);
  });

  it('serves v1alpha with the same answers', async () => {
    const [list, files] = await ask(
      alphaClient,
      { list_services: '' },
      { file_containing_symbol: 'service.v1.SystemService' },
    );
    expect(list?.list_services_response?.service.map((s) => s.name)).toContain(
      'service.v1.SystemService',
    );
    expect(fileNames(files)).toContain('google/api/annotations.proto');
  });
});
