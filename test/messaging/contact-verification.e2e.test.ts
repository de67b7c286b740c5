/**
 * Safety-number verification (POST /api/v1/verify-contact), bound to the contact's published
 * identity key. Key bundles are published by the keys service; here one is written into the
 * store before the service starts, exactly where that service keeps them (`key_bundles`).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KEY_BUNDLES } from '../../src/contacts/contact-verifications.js';
import type { PublishedIdentityKey } from '../../src/contacts/contact-verifications.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { silentLogger } from '../support/silent-logger.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const IDENTITY_KEY = Buffer.alloc(32, 7).toString('base64');
const bobUser = new TestUser();
let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;

/** Bob's key bundle, written where the keys service keeps them, before the service starts. */
async function publishedKeyBundle(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-verify-'));
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  await store.collection<PublishedIdentityKey>(KEY_BUNDLES).insertOne({ _id: bobUser.address.toLowerCase(), identityKey: IDENTITY_KEY });
  await store.close();
  return dataDir;
}

const { service, api } = serviceForThisFile({}, { prepareDataDir: publishedKeyBundle });
beforeAll(async () => {
  [alice, bob, carol] = [await signIn(service.baseUrl), await signIn(service.baseUrl, bobUser), await signIn(service.baseUrl)];
});

const peerInfo = async (viewer: SignedIn, peer: SignedIn) => expectOk(await api.get(`/api/v1/peer-info?address=${peer.user.address}`, bearer(viewer))).peer;

it('verifies a contact against its published identity key, privately, and clears it again', async () => {
  const verified = expectOk(await api.post('/api/v1/verify-contact', { address: bob.user.address, verified: true, identity_key: IDENTITY_KEY }, bearer(alice)));
  expect(verified).toMatchObject({ address: bob.user.address.toLowerCase(), verified: true, identity_key: IDENTITY_KEY });
  expect(verified.verified_at).not.toBe('');
  expect((await peerInfo(alice, bob)).verified).toBe(true);
  expect((await peerInfo(carol, bob)).verified).toBe(false);
  const cleared = expectOk(await api.post('/api/v1/verify-contact', { address: bob.user.address, verified: false }, bearer(alice)));
  expect(cleared).toMatchObject({ verified: false, identity_key: '', verified_at: '' });
  expect((await peerInfo(alice, bob)).verified).toBe(false);
});

it('refuses a key that is not the published one, a contact without keys, and bad input', async () => {
  expectFailure(await api.post('/api/v1/verify-contact', { address: bob.user.address, verified: true, identity_key: 'b3RoZXI=' }, bearer(alice)), 400, 'INVALID_ARGUMENT');
  expectFailure(await api.post('/api/v1/verify-contact', { address: bob.user.address, verified: true }, bearer(alice)), 400, 'INVALID_ARGUMENT');
  expectFailure(await api.post('/api/v1/verify-contact', { address: carol.user.address, verified: true, identity_key: IDENTITY_KEY }, bearer(alice)), 404, 'NOT_FOUND');
  expectFailure(await api.post('/api/v1/verify-contact', { address: alice.user.address, verified: true, identity_key: IDENTITY_KEY }, bearer(alice)), 400, 'INVALID_ARGUMENT');
  expectFailure(await api.post('/api/v1/verify-contact', { address: 'nope', verified: false }, bearer(alice)), 400, 'INVALID_ARGUMENT');
  expectFailure(await api.post('/api/v1/verify-contact', { address: `0x${'cd'.repeat(20)}`, verified: false }, bearer(alice)), 404, 'NOT_FOUND');
});
