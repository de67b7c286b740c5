/**
 * Safety-number verification (POST /api/v1/verify-contact), bound to the contact's published
 * identity key: the one Bob publishes with his key bundle (POST /api/v1/keys), which the
 * contacts area reads from the keys area's store (`key_bundles`).
 */
import { KeyOwner } from '../support/key-bundles.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

let IDENTITY_KEY: string;
let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;

const { service, api } = serviceForThisFile();
beforeAll(async () => {
  [alice, bob, carol] = [
    await signIn(service.baseUrl),
    await signIn(service.baseUrl),
    await signIn(service.baseUrl),
  ];
  const bobKeys = new KeyOwner(bob.user);
  IDENTITY_KEY = bobKeys.identityKey;
  expectOk(await api.post('/api/v1/keys', await bobKeys.bundle(), bearer(bob)));
});

const peerInfo = async (viewer: SignedIn, peer: SignedIn) =>
  expectOk(await api.get(`/api/v1/peer-info?address=${peer.user.address}`, bearer(viewer))).peer;

it('verifies a contact against its published identity key, privately, and clears it again', async () => {
  const verified = expectOk(
    await api.post(
      '/api/v1/verify-contact',
      { address: bob.user.address, verified: true, identity_key: IDENTITY_KEY },
      bearer(alice),
    ),
  );
  expect(verified).toMatchObject({
    address: bob.user.address.toLowerCase(),
    verified: true,
    identity_key: IDENTITY_KEY,
  });
  expect(verified.verified_at).not.toBe('');
  expect((await peerInfo(alice, bob)).verified).toBe(true);
  expect((await peerInfo(carol, bob)).verified).toBe(false);
  const cleared = expectOk(
    await api.post(
      '/api/v1/verify-contact',
      { address: bob.user.address, verified: false },
      bearer(alice),
    ),
  );
  expect(cleared).toMatchObject({ verified: false, identity_key: '', verified_at: '' });
  expect((await peerInfo(alice, bob)).verified).toBe(false);
});

it('refuses a key that is not the published one, a contact without keys, and bad input', async () => {
  expectFailure(
    await api.post(
      '/api/v1/verify-contact',
      { address: bob.user.address, verified: true, identity_key: 'b3RoZXI=' },
      bearer(alice),
    ),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post(
      '/api/v1/verify-contact',
      { address: bob.user.address, verified: true },
      bearer(alice),
    ),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post(
      '/api/v1/verify-contact',
      { address: carol.user.address, verified: true, identity_key: IDENTITY_KEY },
      bearer(alice),
    ),
    404,
    'NOT_FOUND',
  );
  expectFailure(
    await api.post(
      '/api/v1/verify-contact',
      { address: alice.user.address, verified: true, identity_key: IDENTITY_KEY },
      bearer(alice),
    ),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post('/api/v1/verify-contact', { address: 'nope', verified: false }, bearer(alice)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post(
      '/api/v1/verify-contact',
      { address: `0x${'cd'.repeat(20)}`, verified: false },
      bearer(alice),
    ),
    404,
    'NOT_FOUND',
  );
});

it('reads the contact as unverified again once they publish a new identity key', async () => {
  expectOk(
    await api.post(
      '/api/v1/verify-contact',
      { address: bob.user.address, verified: true, identity_key: IDENTITY_KEY },
      bearer(alice),
    ),
  );
  expect((await peerInfo(alice, bob)).verified).toBe(true);
  // A reinstall: a new device key pair, bound anew by the wallet, with a new identity key.
  expectOk(await api.post('/api/v1/keys', await new KeyOwner(bob.user).bundle(), bearer(bob)));
  expect((await peerInfo(alice, bob)).verified).toBe(false);
});
