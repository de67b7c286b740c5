/**
 * MigratePhoneHash: accounts whose stored hash is a legacy V1 hash (made here by rewriting the
 * stored bindings of two registered numbers while the service is stopped, as data from before
 * V2 would be) are upgraded to V2, over REST and over the native gRPC client; the phone sign-in
 * then works with the V2 hash, and every mismatch is refused.
 */
import { openStore } from '../../src/platform/store/open-store.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { grpcClient } from '../support/grpc-client.js';
import type { GrpcServiceClient } from '../support/grpc-client.js';
import { Api, expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { startTestService } from '../support/start-service.js';
import { signIn } from '../support/wallet.js';
import { bearer as grpcBearer, call, failure, ok } from '../identity/grpc/grpc-call.js';
import { PhoneFlow } from './phone-flow.js';
import { TestPhone } from './phone-support.js';

let flow: PhoneFlow;
let phoneService: GrpcServiceClient;
const restPhone = new TestPhone();
const grpcPhone = new TestPhone();
const tokens: Record<string, string> = {};

/** Two numbers registered, then their stored bindings rewritten to V1 while the service is stopped. */
async function legacyData(): Promise<string> {
  const first = await startTestService({}, { keepData: true });
  const { dataDir } = first;
  const firstFlow = new PhoneFlow(new Api(first.baseUrl), dataDir);
  for (const phone of [restPhone, grpcPhone])
    tokens[phone.number] = (await firstFlow.register(phone)).body.access_token;
  await first.stop();

  const store = await openStore({ dataDir, logger: createLogger('silent') });
  const bindings = store.collection<{ _id: string; phoneHash: string; hashVersion: number }>(
    'phone_accounts',
  );
  for (const phone of [restPhone, grpcPhone]) {
    const result = await bindings.updateOne(
      { phoneHash: phone.hash },
      { $set: { phoneHash: phone.legacyHash, hashVersion: 1 } },
    );
    expect(result.modifiedCount).toBe(1);
  }
  await store.close();
  return dataDir;
}

const { service, api } = serviceForThisFile({}, { prepareDataDir: legacyData });
beforeAll(() => {
  flow = new PhoneFlow(api, service.dataDir);
  phoneService = grpcClient(
    service.grpcAddress,
    'service/v1/phone.proto',
    'service.v1.PhoneAuthService',
  );
});
afterAll(() => phoneService.close());

const migration = (phone: TestPhone) => ({
  phone_number: phone.number,
  legacy_phone_hash: phone.legacyHash,
  phone_hash: phone.hash,
});

it('migrates a V1 hash to V2 over REST, once, after which the number signs in by its V2 hash', async () => {
  const auth = { authorization: `Bearer ${tokens[restPhone.number]}` };
  // Before: the V2 hash of the number is unknown to the service.
  expect((await flow.verify(restPhone)).registered).toBe(false);
  expectFailure(
    await api.post('/api/v1/auth/migrate-phone-hash', migration(restPhone)),
    401,
    'UNAUTHORIZED',
  );
  expectFailure(
    await api.post(
      '/api/v1/auth/migrate-phone-hash',
      { ...migration(restPhone), phone_hash: new TestPhone().hash },
      auth,
    ),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post('/api/v1/auth/migrate-phone-hash', migration(new TestPhone()), auth),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post(
      '/api/v1/auth/migrate-phone-hash',
      { ...migration(restPhone), phone_number: 'not a number' },
      auth,
    ),
    400,
    'INVALID_ARGUMENT',
  );

  expect(
    expectOk(await api.post('/api/v1/auth/migrate-phone-hash', migration(restPhone), auth)),
  ).toEqual({
    success: true,
    message: 'Phone hash migrated to V2',
    migrated: true,
    hash_version: 2,
  });
  expect(
    expectOk(await api.post('/api/v1/auth/migrate-phone-hash', migration(restPhone), auth)),
  ).toMatchObject({ migrated: false, hash_version: 2 });
  expect((await flow.verify(restPhone)).registered).toBe(true);
  // The legacy alias of the route answers too.
  expect(
    expectOk(await api.post('/api/auth/migrate-phone-hash', migration(restPhone), auth)),
  ).toMatchObject({ migrated: false });

  const challenge = await flow.challenge(restPhone);
  expectOk(await flow.login(challenge.challenge_id, restPhone.sign(challenge.challenge)));
  // An account without a number has nothing to migrate.
  const walletOnly = await signIn(service.baseUrl);
  expectFailure(
    await api.post('/api/v1/auth/migrate-phone-hash', migration(restPhone), {
      authorization: `Bearer ${walletOnly.accessToken}`,
    }),
    400,
    'INVALID_ARGUMENT',
  );
});

it('migrates a V1 hash to V2 over gRPC', async () => {
  const token = tokens[grpcPhone.number] as string;
  const wrong = await call(
    phoneService,
    'MigratePhoneHash',
    { ...migration(grpcPhone), legacy_phone_hash: grpcPhone.hash },
    grpcBearer(token),
  );
  expect(failure(wrong)).toMatchObject({ code: 'INVALID_ARGUMENT', reason: 'INVALID_ARGUMENT' });
  expect(failure(await call(phoneService, 'MigratePhoneHash', migration(grpcPhone)))).toMatchObject(
    { code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' },
  );
  const { response } = await ok(
    phoneService,
    'MigratePhoneHash',
    migration(grpcPhone),
    grpcBearer(token),
  );
  expect(response).toEqual({
    success: true,
    message: 'Phone hash migrated to V2',
    migrated: true,
    hash_version: 2,
  });
  expect((await flow.verify(grpcPhone)).registered).toBe(true);
});
