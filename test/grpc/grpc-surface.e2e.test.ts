/** The RPC port, called by a native gRPC client: version, health, and errors as gRPC statuses. */
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import type { GrpcServiceClient } from '../support/grpc-client.js';
import { signIn } from '../support/wallet.js';
import { serviceForThisFile } from '../support/service-for-tests.js';

let system: GrpcServiceClient;
let health: GrpcServiceClient;
const { service } = serviceForThisFile();
beforeAll(async () => {
  system = grpcClient(service.grpcAddress, 'service/v1/system.proto', 'service.v1.SystemService');
  health = grpcClient(service.grpcAddress, 'grpc/health/v1/health.proto', 'grpc.health.v1.Health');
});
afterAll(async () => {
  system.close();
  health.close();
});

it('GetVersion answers over gRPC as the current version', async () => {
  const response = await unary(system, 'GetVersion', {});
  expect(response).toEqual({
    success: true,
    message: 'API version information',
    data: { version: 'v1', deprecated: false, supported_versions: ['v1'], current_path: '/api/v1' },
  });
});

it('the health check reports SERVING for the server and for an API service', async () => {
  expect(await unary(health, 'Check', { service: '' })).toEqual({ status: 'SERVING' });
  expect(await unary(health, 'Check', { service: 'service.v1.SystemService' })).toEqual({
    status: 'SERVING',
  });
});

it('the health check answers NOT_FOUND for an unknown service', async () => {
  await expect(unary(health, 'Check', { service: 'no.such.Service' })).rejects.toMatchObject({
    code: grpc.status.NOT_FOUND,
  });
});

it('validation errors arrive as INVALID_ARGUMENT with the machine reason in metadata', async () => {
  const error = await unary(system, 'ReportErrors', { errors: [] }).catch(
    (e: grpc.ServiceError) => e,
  );
  expect(error).toMatchObject({
    code: grpc.status.INVALID_ARGUMENT,
    details: 'errors must contain at least one error',
  });
  expect((error as grpc.ServiceError).metadata.get('x-error-code')).toEqual(['INVALID_ARGUMENT']);
});

it('messages are sent and read over gRPC as over REST, with the same idempotency', async () => {
  const messages = grpcClient(
    service.grpcAddress,
    'service/v1/messages.proto',
    'service.v1.MessagesService',
  );
  const [alice, bob] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
  const as = (session: typeof alice) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${session.accessToken}`);
    return metadata;
  };
  try {
    const request = {
      client_message_id: 'grpc-1',
      recipient_address: bob.user.address,
      ciphertext: Buffer.from('over grpc'),
    };
    const sent = await unary<{ chat_message: { id: string }; duplicate: boolean }>(
      messages,
      'SendMessage',
      request,
      as(alice),
    );
    expect(sent.duplicate).toBe(false);
    const retried = await unary<{ chat_message: { id: string }; duplicate: boolean }>(
      messages,
      'SendMessage',
      request,
      as(alice),
    );
    expect(retried).toMatchObject({ duplicate: true, chat_message: { id: sent.chat_message.id } });
    const history = await unary<{ messages: { id: string; ciphertext: Buffer }[] }>(
      messages,
      'ListMessages',
      { peer_address: alice.user.address },
      as(bob),
    );
    expect(
      history.messages.map((message) => [message.id, Buffer.from(message.ciphertext).toString()]),
    ).toEqual([[sent.chat_message.id, 'over grpc']]);
    const error = await unary(
      messages,
      'ViewOnceMessage',
      { peer: alice.user.address, id: sent.chat_message.id },
      as(bob),
    ).catch((e: grpc.ServiceError) => e);
    expect(error).toMatchObject({ code: grpc.status.NOT_FOUND });
  } finally {
    messages.close();
  }
});

it('counts gRPC calls in the RPC metrics', async () => {
  await unary(system, 'GetVersion', {});
  const metrics = await (await fetch(`${service.baseUrl}/metrics`)).text();
  expect(metrics).toMatch(
    /rpc_requests_total\{service="SystemService",method="GetVersion",code="ok",transport="grpc"\} \d+/,
  );
});
