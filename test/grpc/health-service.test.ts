import * as grpc from '@grpc/grpc-js';
import { Health } from '../../src/gen/grpc/health/v1/health_pb.js';
import { createHealthService } from '../../src/grpc/health/health-service.js';
import type { ServingState } from '../../src/grpc/health/health-service.js';
import { createClient, startServer } from './grpc-test-server.js';
import type { TestServer } from './grpc-test-server.js';

type HealthClient = grpc.Client & {
  Check(
    request: { service: string },
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): void;
  Watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
  List(
    request: object,
    callback: (
      error: grpc.ServiceError | null,
      response?: { statuses: Record<string, { status: string }> },
    ) => void,
  ): void;
};

describe('grpc.health.v1.Health over gRPC', () => {
  let state: ServingState = 'SERVING';
  const checked: string[] = [];
  let server: TestServer;
  let client: HealthClient;

  beforeAll(async () => {
    server = await startServer((router) => {
      router.service(
        Health,
        createHealthService((service) => {
          checked.push(service);
          return state;
        }),
      );
    });
    client = createClient<HealthClient>(
      'grpc-health-check/proto/health/v1/health.proto',
      'grpc.health.v1.Health',
      server.address,
    );
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  beforeEach(() => {
    state = 'SERVING';
  });

  const check = (service: string) =>
    new Promise<{ status: string }>((resolve, reject) =>
      client.Check({ service }, (error, response) =>
        error ? reject(error) : resolve(response as { status: string }),
      ),
    );

  it('answers SERVING for the server and for an API service', async () => {
    await expect(check('')).resolves.toEqual({ status: 'SERVING' });
    await expect(check('service.v1.SystemService')).resolves.toEqual({ status: 'SERVING' });
    state = 'NOT_SERVING';
    await expect(check('')).resolves.toEqual({ status: 'NOT_SERVING' });
  });

  it('answers NOT_FOUND for an unknown service, without asking the check', async () => {
    checked.length = 0;
    await expect(check('service.v1.NoSuchService')).rejects.toMatchObject({
      code: grpc.status.NOT_FOUND,
    });
    expect(checked).toEqual([]);
  });

  it('lists the known services', async () => {
    const statuses = await new Promise<Record<string, { status: string }>>((resolve, reject) =>
      client.List({}, (error, response) =>
        error ? reject(error) : resolve(response?.statuses ?? {}),
      ),
    );
    expect(statuses['']).toEqual({ status: 'SERVING' });
    expect(statuses['service.v1.SystemService']).toEqual({ status: 'SERVING' });
  });

  it('streams the current status, then each change, and stops checking when the call ends', async () => {
    const call = client.Watch({ service: 'service.v1.SystemService' });
    const received: string[] = [];
    const next = () =>
      new Promise<string>((resolve) =>
        call.once('data', (message: { status: string }) => resolve(message.status)),
      );
    call.on('error', () => undefined); // the cancellation below ends the call with CANCELLED
    received.push(await next());
    state = 'NOT_SERVING';
    received.push(await next());
    expect(received).toEqual(['SERVING', 'NOT_SERVING']);

    call.cancel();
    await new Promise((resolve) => setTimeout(resolve, 300));
    checked.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(checked).toEqual([]);
  });

  it('watches an unknown service as SERVICE_UNKNOWN', async () => {
    const call = client.Watch({ service: 'service.v1.NoSuchService' });
    call.on('error', () => undefined);
    const first = await new Promise<{ status: string }>((resolve) => call.once('data', resolve));
    expect(first).toEqual({ status: 'SERVICE_UNKNOWN' });
    call.cancel();
  });
});
