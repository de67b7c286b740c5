/**
 * A deleted account's username is held for exactly 30 days, in one place: held_usernames. Over
 * real HTTP: after the deletion nobody else may take the name (update-username, registration:
 * 409). In the store the service left behind: the account record is gone (nothing else holds
 * the name), the hold runs to exactly the wallet's retirement + 30 days (the same end as the
 * wallet's refusal), and, on a controlled clock, the name is held up to its last millisecond
 * and free from then on.
 */
import { rm } from 'node:fs/promises';
import { jest } from '@jest/globals';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { HeldUsernames, USERNAME_HOLD_MS } from '../../src/accounts/held-usernames.js';
import { Usernames } from '../../src/accounts/usernames.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { Api, expectFailure, expectOk } from '../support/session-api.js';
import { deleteAccountSigned } from '../support/signed-request.js';
import { silentLogger } from '../support/silent-logger.js';
import { startTestService } from '../support/start-service.js';
import { TestUser, bearer, signIn } from '../support/wallet.js';

afterEach(() => jest.restoreAllMocks());

it('holds the username 30 days to the millisecond, in held_usernames only, and frees it after', async () => {
  const service = await startTestService({}, { keepData: true });
  const api = new Api(service.baseUrl);
  const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const name = alice.user.username.toLowerCase();
  const aliceAddress = alice.user.address.toLowerCase();
  try {
    expectOk(await deleteAccountSigned(api, alice));

    expectFailure(
      await api.post('/api/v1/update-username', { username: name }, bearer(bob)),
      409,
      'CONFLICT',
    );
    const newcomer = Object.assign(new TestUser(), { username: name });
    expectFailure(
      await api.post('/api/v1/initialize', await newcomer.initializeBody('register')),
      409,
      'CONFLICT',
    );
    expectOk(
      await api.post(
        '/api/v1/update-username',
        { username: `${name.slice(0, 28)}_bob` },
        bearer(bob),
      ),
    );
  } finally {
    await service.stop({ keepData: true });
  }

  const store = await EmbeddedDocumentStore.open({
    dataDir: service.dataDir,
    logger: silentLogger,
  });
  try {
    expect(await store.collection('accounts').findOne({ _id: aliceAddress })).toBeNull();
    expect(await store.collection('accounts').countDocuments({ purgeAt: { $exists: true } })).toBe(
      0,
    );
    const retired = await store
      .collection<{ _id: string; retiredAt: Date; expiresAt: Date }>('retired_wallets')
      .findOne({ _id: aliceAddress });
    const hold = await store
      .collection<{ _id: string; formerOwner: string; heldUntil: Date }>('held_usernames')
      .findOne({ _id: name });
    expect(hold).toEqual({
      _id: name,
      formerOwner: aliceAddress,
      heldUntil: new Date(retired!.retiredAt.getTime() + USERNAME_HOLD_MS),
    });
    expect(retired!.expiresAt).toEqual(hold!.heldUntil);

    const usernames = new Usernames(new AccountRepository(store), new HeldUsernames(store));
    const bobAddress = bob.user.address.toLowerCase();
    const clock = jest.spyOn(Date, 'now');
    clock.mockReturnValue(hold!.heldUntil.getTime() - 1);
    await expect(usernames.change(bobAddress, name)).rejects.toMatchObject({
      message: expect.stringContaining('taken'),
    });
    clock.mockReturnValue(hold!.heldUntil.getTime());
    expect(await usernames.change(bobAddress, name)).toEqual({ username: name, changed: true });
  } finally {
    await store.close();
    await rm(service.dataDir, { recursive: true, force: true });
  }
});
