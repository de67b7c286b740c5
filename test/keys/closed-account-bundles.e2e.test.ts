/**
 * The key directory keeps a record up to 48 h after its owner stops republishing it, so a
 * deleted account's address, and the old address of an account that recovery moved, must be
 * refused by the service itself: `GET /api/v1/keys/{address}` answers 404 for both (the store's
 * retired wallets decide), while the new address serves the bundle its owner publishes. Real
 * HTTP, X-Signature and recovery messages signed with ethers, the default directory (a DHT node).
 */
import { expectNoBundle, KeyOwner } from '../support/key-bundles.js';
import { expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { deleteAccountSigned } from '../support/signed-request.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { completeWithCode, setupRecovery } from '../recovery/recovery-support.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
const fetchBundle = (viewer: SignedIn, address: string) =>
  api.get(`/api/v1/keys/${address}`, bearer(viewer));

/** A signed-in user whose bundle is published and served. */
async function publishing(viewer: SignedIn): Promise<SignedIn> {
  const owner = await signIn(service.baseUrl);
  expectOk(
    await api.post(
      '/api/v1/keys',
      await new KeyOwner(owner.user).bundle({ prekeys: 2 }),
      bearer(owner),
    ),
  );
  expectOk(await fetchBundle(viewer, owner.user.address));
  return owner;
}

it("a deleted account's address is served no bundle (404)", async () => {
  const viewer = await signIn(service.baseUrl);
  const leaving = await publishing(viewer);
  expectOk(await deleteAccountSigned(api, leaving));
  expectNoBundle(await fetchBundle(viewer, leaving.user.address));
  expectNoBundle(await fetchBundle(viewer, leaving.user.address.toUpperCase().replace('0X', '0x')));
});

it('the old address of a recovered account is served no bundle (404); the new wallet publishes and is served', async () => {
  const viewer = await signIn(service.baseUrl);
  const owner = await publishing(viewer);
  const codes = expectOk(
    await setupRecovery(api, owner, {
      guardians: [viewer.user.address],
      min_guardians_required: 1,
      time_lock_hours: 24,
    }),
  ).backup_codes as string[];
  const newWallet = new TestUser();
  expectOk(await completeWithCode(api, owner.user.address, newWallet, codes[0]!));
  expectNoBundle(await fetchBundle(viewer, owner.user.address));

  const moved = await signIn(service.baseUrl, newWallet, 'sign-in');
  expectOk(
    await api.post(
      '/api/v1/keys',
      await new KeyOwner(newWallet).bundle({ prekeys: 1 }),
      bearer(moved),
    ),
  );
  expect(expectOk(await fetchBundle(viewer, newWallet.address)).keyBundle.address).toBe(
    newWallet.address.toLowerCase(),
  );
  expectNoBundle(await fetchBundle(viewer, owner.user.address));
});
