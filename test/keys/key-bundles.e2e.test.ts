/**
 * Key bundles end to end over real HTTP and a real gRPC client, on one service with its
 * default key directory (one DHT node): publishing checks the owner's signatures (the wallet's
 * binding, the bundle statement, the signed prekey) and refuses anything else with the
 * documented codes; a fetch returns the spec's exact shape, which a client verifies with
 * independent libraries; each one-time prekey is handed out once, also under 100 concurrent
 * fetches; top-ups keep the limits.
 */
import {
  clientVerifiesBundle,
  expectNoBundle,
  KeyOwner,
  oneTimePreKeys,
} from '../support/key-bundles.js';
import type { BundleBody } from '../support/key-bundles.js';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile();
let alice: SignedIn;
let bob: SignedIn;
let aliceKeys: KeyOwner;

beforeAll(async () => {
  [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  aliceKeys = new KeyOwner(alice.user);
});

const publish = (session: SignedIn, body: unknown) =>
  api.post('/api/v1/keys', body, bearer(session));
const fetchBundle = (viewer: SignedIn, address: string) =>
  api.get(`/api/v1/keys/${address}`, bearer(viewer));
const flipFirstChar = (base64: string) => (base64[0] === 'A' ? 'B' : 'A') + base64.slice(1);

describe('publishing', () => {
  it("accepts a correctly signed bundle and serves it in the spec's exact shape, verifiable by the client", async () => {
    const body = await aliceKeys.bundle({ prekeys: 5 });
    const published = expectOk(await publish(alice, body));
    expect(published).toEqual({
      success: true,
      message: expect.any(String),
      one_time_pre_key_count: 5,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });

    const fetched = expectOk(await fetchBundle(bob, alice.user.address));
    expect(fetched).toEqual({
      success: true,
      message: expect.any(String),
      keyBundle: {
        address: aliceKeys.address,
        ed25519PublicKey: body.ed25519PublicKey,
        identityKey: body.identityKey,
        oneTimePreKeys: [body.oneTimePreKeys[0]],
        registrationId: body.registrationId,
        signedPreKey: body.signedPreKey,
        walletBinding: body.walletBinding,
        bundleSignature: body.bundleSignature,
      },
    });
    expect(Number.isInteger(fetched.keyBundle.signedPreKey.timestamp)).toBe(true);
    expect(clientVerifiesBundle(fetched.keyBundle)).toBe(true);
  });

  it('refuses a signed prekey or a bundle statement that the Ed25519 key did not sign: 400 INVALID_SIGNATURE', async () => {
    const good = await aliceKeys.bundle();
    const badPreKey: BundleBody = {
      ...good,
      signedPreKey: {
        ...good.signedPreKey,
        signature: aliceKeys.signEd25519(Buffer.from('something else')),
      },
    };
    expectFailure(await publish(alice, badPreKey), 400, 'INVALID_SIGNATURE');
    // The identity key swapped after signing: the statement no longer verifies.
    const swappedIdentity = {
      ...good,
      identityKey: (await new KeyOwner(bob.user).bundle()).identityKey,
    };
    expectFailure(await publish(alice, swappedIdentity), 400, 'INVALID_SIGNATURE');
    expectFailure(
      await publish(alice, { ...good, bundleSignature: flipFirstChar(good.bundleSignature) }),
      400,
      'INVALID_SIGNATURE',
    );
  });

  it("refuses a wallet binding that is not the caller's wallet over this Ed25519 key: 400 INVALID_WALLET_BINDING", async () => {
    // Bob's wallet bound Alice's key: the binding is Bob's, not Alice's.
    const bobsBinding = await new KeyOwner(bob.user).walletBinding();
    const good = await aliceKeys.bundle();
    expectFailure(
      await publish(alice, {
        ...good,
        walletBinding: { ...good.walletBinding, signature: bobsBinding.signature },
      }),
      400,
      'INVALID_WALLET_BINDING',
    );
    // Alice's wallet, but over another Ed25519 key (another device's).
    const otherDevice = new KeyOwner(alice.user);
    const otherBinding = await otherDevice.walletBinding(good.walletBinding.timestamp);
    expectFailure(
      await publish(alice, { ...good, walletBinding: otherBinding }),
      400,
      'INVALID_WALLET_BINDING',
    );
    expectFailure(
      await publish(alice, {
        ...good,
        walletBinding: { ...good.walletBinding, signature: '0x1234' },
      }),
      400,
      'INVALID_WALLET_BINDING',
    );
    const { walletBinding: _omitted, ...withoutBinding } = good;
    expectFailure(await publish(alice, withoutBinding), 400, 'INVALID_WALLET_BINDING');
    // Dated an hour ahead: it would outrank every later honest publish.
    const future = new KeyOwner(alice.user);
    expectFailure(
      await publish(alice, await future.bundle({ bindingTimestamp: Date.now() + 3_600_000 })),
      400,
      'INVALID_WALLET_BINDING',
    );
  });

  it('refuses malformed keys, ids and lists with 400 INVALID_ARGUMENT', async () => {
    const good = await aliceKeys.bundle();
    const cases: unknown[] = [
      { ...good, ed25519PublicKey: 'not base64!' },
      { ...good, identityKey: Buffer.alloc(31).toString('base64') },
      { ...good, registrationId: 0 },
      { ...good, registrationId: 16_381 },
      { ...good, signedPreKey: { ...good.signedPreKey, keyId: 0 } },
      { ...good, oneTimePreKeys: oneTimePreKeys(101) },
      { ...good, oneTimePreKeys: [...oneTimePreKeys(2, 7), ...oneTimePreKeys(1, 7)] },
      { ...good, oneTimePreKeys: [{ keyId: 1, publicKey: 'AAAA' }] },
      { ...good, unknownMember: true },
    ];
    for (const body of cases) expectFailure(await publish(alice, body), 400, 'INVALID_ARGUMENT');
  });

  it('refuses a bundle older than the published one (409 STALE_KEY_BUNDLE) and serves a newer signed prekey', async () => {
    const now = Date.now();
    const current = await aliceKeys.bundle({ signedPreKeyTimestamp: now });
    expectOk(await publish(alice, current));
    expectFailure(
      await publish(alice, await aliceKeys.bundle({ signedPreKeyTimestamp: now - 1000 })),
      409,
      'STALE_KEY_BUNDLE',
    );
    const rotated = await aliceKeys.bundle({ signedPreKeyTimestamp: now + 1 });
    expectOk(await publish(alice, rotated));
    expect(expectOk(await fetchBundle(bob, alice.user.address)).keyBundle.signedPreKey).toEqual(
      rotated.signedPreKey,
    );
  });
});

describe('fetching', () => {
  it('answers 404 in the envelope (success false, error, code, message) for an address without a bundle, 400 for a malformed one', async () => {
    expectNoBundle(await fetchBundle(alice, new TestUser().address));
    expectFailure(await fetchBundle(alice, '0x1234'), 400, 'INVALID_ARGUMENT');
    expectFailure(await fetchBundle(alice, `0x${'g'.repeat(40)}`), 400, 'INVALID_ARGUMENT');
    expect((await api.get(`/api/v1/keys/${alice.user.address}`)).status).toBe(401);
  });

  it('hands 100 concurrent fetches 100 distinct one-time prekeys, then the signed prekey alone', async () => {
    const carol = await signIn(service.baseUrl);
    const carolKeys = new KeyOwner(carol.user);
    const body = await carolKeys.bundle({ prekeys: 100, firstPreKeyId: 1000 });
    expectOk(await publish(carol, body));
    const replies = await Promise.all(
      Array.from({ length: 100 }, () => fetchBundle(bob, carol.user.address)),
    );
    const handedOut = replies.map((reply) => expectOk(reply).keyBundle.oneTimePreKeys);
    expect(handedOut.every((keys) => keys.length === 1)).toBe(true);
    const ids = handedOut.map((keys) => keys[0].keyId);
    expect(new Set(ids).size).toBe(100);
    expect([...ids].sort((a, b) => a - b)).toEqual(body.oneTimePreKeys.map((key) => key.keyId));

    const exhausted = expectOk(await fetchBundle(bob, carol.user.address)).keyBundle;
    expect(exhausted.oneTimePreKeys).toEqual([]);
    expect(exhausted.signedPreKey).toEqual(body.signedPreKey);
    expect(clientVerifiesBundle(exhausted)).toBe(true);
    expect(expectOk(await api.get('/api/v1/keys', bearer(carol))).one_time_pre_key_count).toBe(0);
  });

  it('serves the same bundle over gRPC, with NOT_FOUND and INVALID_ARGUMENT as status codes', async () => {
    const keys = grpcClient(service.grpcAddress, 'service/v1/keys.proto', 'service.v1.KeysService');
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${bob.accessToken}`);
    const reply = await unary(keys, 'GetKeyBundle', { address: alice.user.address }, metadata);
    expect(reply.key_bundle.address).toBe(aliceKeys.address);
    expect(reply.key_bundle.ed25519_public_key).toBe(aliceKeys.ed25519PublicKey);
    await expect(
      unary(keys, 'GetKeyBundle', { address: new TestUser().address }, metadata),
    ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    await expect(unary(keys, 'GetKeyBundle', { address: 'nope' }, metadata)).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
    });
    keys.close();
  });
});

describe('own keys and top-ups', () => {
  let dave: SignedIn;
  let daveKeys: KeyOwner;
  beforeAll(async () => {
    dave = await signIn(service.baseUrl);
    daveKeys = new KeyOwner(dave.user);
  });
  const topUp = (keys: unknown) =>
    api.post('/api/v1/keys/one-time-prekeys', { oneTimePreKeys: keys }, bearer(dave));

  it('refuses a top-up before any bundle (409) and a read of own keys (404)', async () => {
    expectFailure(await topUp(oneTimePreKeys(1)), 409, 'CONFLICT');
    expectFailure(await api.get('/api/v1/keys', bearer(dave)), 404, 'NOT_FOUND');
  });

  it('lists every remaining key with the count, and tops up to at most 200 stored, 100 per call, ids unique', async () => {
    const body = await daveKeys.bundle({ prekeys: 100, firstPreKeyId: 1 });
    expectOk(await publish(dave, body));
    const own = expectOk(await api.get('/api/v1/keys', bearer(dave)));
    expect(own.one_time_pre_key_count).toBe(100);
    expect(own.keyBundle.oneTimePreKeys).toEqual(body.oneTimePreKeys);
    expect(own.keyBundle.walletBinding).toEqual(body.walletBinding);

    expectFailure(await topUp([]), 400, 'INVALID_ARGUMENT');
    expectFailure(await topUp(oneTimePreKeys(101, 500)), 400, 'INVALID_ARGUMENT');
    expectFailure(await topUp(oneTimePreKeys(1, 100)), 400, 'INVALID_ARGUMENT');
    expect(expectOk(await topUp(oneTimePreKeys(100, 101))).one_time_pre_key_count).toBe(200);
    expectFailure(await topUp(oneTimePreKeys(1, 201)), 400, 'INVALID_ARGUMENT');
    await fetchBundle(alice, dave.user.address);
    expect(expectOk(await topUp(oneTimePreKeys(1, 201))).one_time_pre_key_count).toBe(200);
  });
});
