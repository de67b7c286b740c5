/**
 * A spent X-Signature stays spent across a restart: the spent signatures are kept in the store
 * (like sign-in's), not in process memory or shared state, so a captured signature of a
 * signature-gated request (here SetupRecovery, which succeeded) cannot be replayed after the
 * service restarts with its in-process shared state empty. Real HTTP, ethers signatures.
 */
import { Api, expectAccessAccepted, expectFailure, expectOk } from '../support/session-api.js';
import { SETUP_RECOVERY_RPC, encodeSetupRecovery, xSignature } from '../support/signed-request.js';
import { startTestService } from '../support/start-service.js';
import type { TestService } from '../support/start-service.js';
import { bearer, signIn } from '../support/wallet.js';
import type { Json } from '../support/json.js';

let service: TestService | undefined;
afterAll(async () => {
  await service?.stop();
});

it('refuses a replayed SetupRecovery signature after a restart (401 REPLAY_DETECTED)', async () => {
  service = await startTestService({}, { keepData: true });
  const [owner, guardian] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const body = {
    guardians: [guardian.user.address],
    min_guardians_required: 1,
    time_lock_hours: 24,
  };
  const headers = {
    'content-type': 'application/json',
    ...bearer(owner),
    'x-signature': await xSignature(owner.user, {
      rpc: SETUP_RECOVERY_RPC,
      body: encodeSetupRecovery(body),
    }),
  };
  const send = async (baseUrl: string) => {
    const response = await fetch(new Api(baseUrl).url('/api/v1/recovery/setup'), {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      body: (await response.json()) as Json,
      headers: response.headers,
    };
  };
  expect(expectOk(await send(service.baseUrl)).backup_codes).toHaveLength(12);

  const dataDir = service.dataDir;
  await service.stop({ keepData: true });
  service = await startTestService({}, { dataDir });
  expectFailure(await send(service.baseUrl), 401, 'REPLAY_DETECTED');
  // The session itself survived the restart: only the signature is refused.
  await expectAccessAccepted(new Api(service.baseUrl), owner.accessToken);
});
