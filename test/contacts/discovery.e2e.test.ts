/**
 * Contact discovery over real HTTP and native gRPC: phone hashes in, the registered accounts'
 * addresses out; partial registrations, accounts being deleted and accounts that blocked the
 * caller are left out; bad input is 400. Then the enumeration quota across two api processes
 * sharing one Redis: new hashes are charged wherever they are looked up, repeats are free, and
 * a request beyond the budget is 429 with Retry-After. Last, the budget's floor in the store:
 * a Redis that restarts empty gives nobody a fresh budget.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { PhoneFlow } from '../phone/phone-flow.js';
import { TestPhone } from '../phone/phone-support.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { eventually } from '../support/private-deployment.js';
import { startPrivateRedis } from '../support/private-redis.js';
import { KeyOwner } from '../support/key-bundles.js';
import { Api, expectFailure, expectOk } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { silentLogger } from '../support/silent-logger.js';
import { startTestService } from '../support/start-service.js';
import type { TestService } from '../support/start-service.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const randomHash = () => randomBytes(32).toString('hex');
const discover = (api: Api, session: SignedIn, hashes: unknown) =>
  api.post('/api/v1/discover', { phone_hashes: hashes }, bearer(session));
const matchesOf = (reply: Reply) =>
  (expectOk(reply).matches as { phone_hash: string; address: string }[]).sort((a, b) =>
    a.address.localeCompare(b.address),
  );

/** A phone registration completed by its first key bundle, as a client does it. */
async function registeredPhone(
  service: TestService,
  complete = true,
): Promise<{ phone: TestPhone; user: TestUser; accessToken: string }> {
  const api = new Api(service.baseUrl);
  const phone = new TestPhone();
  const { user, body } = await new PhoneFlow(api, service.dataDir).register(phone);
  if (complete)
    expectOk(
      await api.post('/api/v1/keys', await new KeyOwner(user).bundle(), {
        authorization: `Bearer ${body.access_token}`,
      }),
    );
  return { phone, user, accessToken: body.access_token };
}

describe('one process', () => {
  const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });

  it('returns the registered accounts of the submitted hashes, once each, and nothing for the rest', async () => {
    const caller = await signIn(service.baseUrl);
    const [first, second, partial] = await Promise.all([
      registeredPhone(service),
      registeredPhone(service),
      registeredPhone(service, false),
    ]);
    const unknown = randomHash();
    const matches = matchesOf(
      await discover(api, caller, [
        first.phone.hash,
        unknown,
        second.phone.hash,
        first.phone.hash,
        partial.phone.hash,
        first.phone.legacyHash,
      ]),
    );
    expect(matches).toEqual(
      [
        { phone_hash: first.phone.hash, address: first.user.address.toLowerCase() },
        { phone_hash: second.phone.hash, address: second.user.address.toLowerCase() },
      ].sort((a, b) => a.address.localeCompare(b.address)),
    );
  });

  it('leaves out an account that has blocked the caller, and only for that caller', async () => {
    const [caller, other] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    const blocker = await registeredPhone(service);
    expectOk(
      await api.post(
        '/api/v1/block-contact',
        { address: caller.user.address },
        { authorization: `Bearer ${blocker.accessToken}` },
      ),
    );
    expect(matchesOf(await discover(api, caller, [blocker.phone.hash]))).toEqual([]);
    expect(matchesOf(await discover(api, other, [blocker.phone.hash]))).toEqual([
      { phone_hash: blocker.phone.hash, address: blocker.user.address.toLowerCase() },
    ]);
  });

  it('answers 400 for no hashes, more than 1,000, an empty or too long hash, or a wrong type; 401 without a token', async () => {
    const caller = await signIn(service.baseUrl);
    for (const hashes of [
      [],
      Array.from({ length: 1001 }, randomHash),
      [''],
      ['x'.repeat(129)],
      [randomHash(), 5],
      'abc',
    ]) {
      expectFailure(await discover(api, caller, hashes), 400, 'INVALID_ARGUMENT');
    }
    expectFailure(
      await api.post('/api/v1/discover', { phone_hashes: [randomHash()] }),
      401,
      'UNAUTHORIZED',
    );
    expect(matchesOf(await discover(api, caller, ['x'.repeat(128)]))).toEqual([]);
  });

  it('is served over native gRPC', async () => {
    const caller = await signIn(service.baseUrl);
    const found = await registeredPhone(service);
    const client = grpcClient(
      service.grpcAddress,
      fileURLToPath(new URL('../../proto/service/v1/contacts.proto', import.meta.url)),
      'service.v1.ContactsService',
    );
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${caller.accessToken}`);
    expect(
      await unary(
        client,
        'DiscoverContacts',
        { phone_hashes: [found.phone.hash, randomHash()] },
        metadata,
      ),
    ).toMatchObject({
      success: true,
      matches: [{ phone_hash: found.phone.hash, address: found.user.address.toLowerCase() }],
    });
    await expect(
      unary(client, 'DiscoverContacts', { phone_hashes: [] }, metadata),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    client.close();
  });
});

it('leaves out an account whose deletion has begun (deletedAt on the account record), across a restart', async () => {
  const first = await startTestService({ RATE_LIMITS_ENABLED: 'false' }, { keepData: true });
  let leaving: Awaited<ReturnType<typeof registeredPhone>>;
  let staying: Awaited<ReturnType<typeof registeredPhone>>;
  try {
    [leaving, staying] = await Promise.all([registeredPhone(first), registeredPhone(first)]);
  } finally {
    await first.stop({ keepData: true });
  }
  // What account deletion writes first (the recovery branch builds the flow): the account's deletedAt.
  const store = await EmbeddedDocumentStore.open({ dataDir: first.dataDir, logger: silentLogger });
  await store
    .collection('accounts')
    .updateOne({ _id: leaving.user.address.toLowerCase() }, { $set: { deletedAt: new Date() } });
  await store.close();

  const second = await startTestService(
    { RATE_LIMITS_ENABLED: 'false' },
    { dataDir: first.dataDir },
  );
  try {
    const caller = await signIn(second.baseUrl);
    const matches = matchesOf(
      await discover(new Api(second.baseUrl), caller, [leaving.phone.hash, staying.phone.hash]),
    );
    expect(matches).toEqual([
      { phone_hash: staying.phone.hash, address: staying.user.address.toLowerCase() },
    ]);
  } finally {
    await second.stop();
  }
});

await withRedis((redisUrl) => {
  describe('the enumeration quota across two api processes sharing one Redis', () => {
    const prefix = uniqueTestPrefix('discovery-quota');
    const shared = {
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: prefix,
      JWT_SIGNING_KEY: generateKeyPairSync('ed25519')
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString(),
      ROLE: 'api',
      ALLOW_EMBEDDED_STORE: 'true',
      KEYS_DHT: 'off',
      DISCOVERY_HASH_BUDGET: '1000',
    };
    const { service: podA, api: apiA } = serviceForThisFile(shared);
    const { service: podB, api: apiB } = serviceForThisFile(shared);
    afterAll(() => deleteKeys(redisUrl, prefix));

    it('charges new hashes on either pod against one budget, lets repeats through free, and answers 429 with Retry-After beyond it', async () => {
      // One wallet, registered on each pod (the embedded stores are the pods' own; the budget is the user's, in Redis).
      const user = new TestUser();
      const [onA, onB] = [await signIn(podA.baseUrl, user), await signIn(podB.baseUrl, user)];
      const batch = (size: number) => Array.from({ length: size }, randomHash);
      const firstSix = batch(600);

      expectOk(await discover(apiA, onA, firstSix));
      const refused = await discover(apiB, onB, batch(600));
      expectFailure(refused, 429, 'RATE_LIMIT_EXCEEDED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expectOk(await discover(apiB, onB, firstSix));
      expectOk(await discover(apiB, onB, [...firstSix.slice(0, 300), ...batch(390)]));
      expectFailure(await discover(apiA, onA, batch(20)), 429, 'RATE_LIMIT_EXCEEDED');
      expectOk(await discover(apiA, onA, firstSix.slice(100, 400)));

      // Another user has a budget of its own.
      const other = await signIn(podB.baseUrl);
      expectOk(await discover(apiB, other, batch(1000)));
    });
  });
});

it("keeps a spent budget when Redis restarts empty: new and repeated hashes are charged against the store's floor", async () => {
  const redis = await startPrivateRedis();
  const service = await startTestService({ REDIS_URL: redis.url, DISCOVERY_HASH_BUDGET: '1000' });
  try {
    const api = new Api(service.baseUrl);
    const caller = await signIn(service.baseUrl);
    const batch = (size: number) => Array.from({ length: size }, randomHash);
    const firstSix = batch(600);
    expectOk(await discover(api, caller, firstSix));
    await redis.restartEmpty();

    // Until the process has reconnected (and rebuilt its mirrors) it may answer 503; never 200.
    const afterLoss = await eventually(
      async () => {
        const reply = await discover(api, caller, batch(600));
        return reply.status === 503 ? undefined : reply;
      },
      20_000,
      'the reconnection to Redis',
    );
    expectFailure(afterLoss, 429, 'RATE_LIMIT_EXCEEDED');
    expect(Number(afterLoss.headers.get('retry-after'))).toBeGreaterThan(0);
    // Redis forgot which hashes were looked up: repeats cost again, and 600 do not fit in the 400 left.
    expectFailure(await discover(api, caller, firstSix), 429, 'RATE_LIMIT_EXCEEDED');
    expectOk(await discover(api, caller, firstSix.slice(0, 390)));
    expectFailure(await discover(api, caller, batch(20)), 429, 'RATE_LIMIT_EXCEEDED');
    // Another user's budget is whole.
    expectOk(await discover(api, await signIn(service.baseUrl), batch(1000)));
  } finally {
    await service.stop();
    await redis.stop();
  }
});
