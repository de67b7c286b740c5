/**
 * The X-Signature gate over native gRPC: the signed request names the RPC and hashes the request
 * message's protobuf encoding (built here by hand from the field numbers of profile.proto,
 * independently of both the server's and the client's encoders).
 */
import { grpc, grpcClient } from '../support/grpc-client.js';
import { expectFailure } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { DELETE_ACCOUNT_RPC, SETUP_RECOVERY_RPC, xSignature } from '../support/signed-request.js';
import { signIn } from '../support/wallet.js';
import { call } from '../identity/grpc/grpc-call.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });

/** DeleteAccountRequest with only `confirm` (field 1, length-delimited) set. */
const encodedRequest = (confirm: string) =>
  Buffer.concat([Buffer.from([0x0a, Buffer.byteLength(confirm)]), Buffer.from(confirm)]);

it('DeleteAccount over gRPC needs the X-Signature metadata of the encoded request', async () => {
  const alice = await signIn(service.baseUrl);
  const profile = grpcClient(
    service.grpcAddress,
    'service/v1/profile.proto',
    'service.v1.ProfileService',
  );
  const authorization = `Bearer ${alice.accessToken}`;
  const request = { confirm: alice.user.address };

  const unsigned = await call(profile, 'DeleteAccount', request, { authorization });
  expect(unsigned.error?.code).toBe(grpc.status.UNAUTHENTICATED);
  expect(unsigned.status.metadata.get('x-error-code')).toEqual(['SIGNATURE_REQUIRED']);

  const ofOtherRpc = await xSignature(alice.user, {
    rpc: SETUP_RECOVERY_RPC,
    body: encodedRequest(alice.user.address),
  });
  const wrongRpc = await call(profile, 'DeleteAccount', request, {
    authorization,
    'x-signature': ofOtherRpc,
  });
  expect(wrongRpc.status.metadata.get('x-error-code')).toEqual(['UNAUTHORIZED']);

  const signature = await xSignature(alice.user, {
    rpc: DELETE_ACCOUNT_RPC,
    body: encodedRequest(alice.user.address),
  });
  const deleted = await call(profile, 'DeleteAccount', request, {
    authorization,
    'x-signature': signature,
  });
  expect(deleted.error).toBeUndefined();
  expect(deleted.response).toMatchObject({
    success: true,
    deleted_at: expect.stringMatching(/Z$/),
  });
  expectFailure(await api.listSessions(alice.accessToken), 401, 'UNAUTHORIZED');
  profile.close();
});
