/**
 * The Initialize status probe over real HTTP: without message and signature the call signs
 * nothing in and says which flow the wallet needs (400 for a new wallet, 401 for an existing
 * one); a request with only one of the two members is a failed sign-in (401).
 */
import { TestUser, signIn } from '../../support/wallet.js';
import { expectFailure, freshMessage, postInitialize } from '../../support/signin-http.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let existing: TestUser;
const { service } = serviceForThisFile();
beforeAll(async () => {
  existing = (await signIn(service.baseUrl)).user;
});

describe('neither message nor signature', () => {
  it('400 INVALID_ARGUMENT (username required) for a wallet without an account, and no cookie', async () => {
    const answer = await postInitialize(service.baseUrl, {
      wallet_address: new TestUser().address,
    });
    expectFailure(answer, 400, 'INVALID_ARGUMENT');
    expect(answer.setCookies).toEqual([]);
  });

  it('401 UNAUTHORIZED (signature required) for a wallet with an account, in any address case', async () => {
    for (const wallet_address of [
      existing.address,
      existing.address.toLowerCase(),
      `0x${existing.address.slice(2).toUpperCase()}`,
    ]) {
      const answer = await postInitialize(service.baseUrl, { wallet_address });
      expectFailure(answer, 401, 'UNAUTHORIZED');
      expect(answer.setCookies).toEqual([]);
    }
  });

  it('still probes when the members are present but empty, and a username does not change the answer', async () => {
    expectFailure(
      await postInitialize(service.baseUrl, {
        wallet_address: new TestUser().address,
        message: '',
        signature: '',
        username: 'newcomer',
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await postInitialize(service.baseUrl, {
        wallet_address: existing.address,
        message: '',
        signature: '',
      }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('only one of message and signature', () => {
  // A new wallet would get 400 from the probe, so 401 here proves these are not probes.
  it('401 UNAUTHORIZED with a signed message but no signature', async () => {
    const user = new TestUser();
    const answer = await postInitialize(service.baseUrl, {
      wallet_address: user.address,
      message: freshMessage('registration compact', user),
    });
    expectFailure(answer, 401, 'UNAUTHORIZED');
  });

  it('401 UNAUTHORIZED with a signature but no message', async () => {
    const user = new TestUser();
    const answer = await postInitialize(service.baseUrl, {
      wallet_address: user.address,
      signature: await user.sign(freshMessage('registration compact', user)),
    });
    expectFailure(answer, 401, 'UNAUTHORIZED');
  });

  it('401 UNAUTHORIZED for an existing wallet too', async () => {
    const message = freshMessage('sign-in', existing);
    expectFailure(
      await postInitialize(service.baseUrl, { wallet_address: existing.address, message }),
      401,
      'UNAUTHORIZED',
    );
    expectFailure(
      await postInitialize(service.baseUrl, {
        wallet_address: existing.address,
        signature: await existing.sign(message),
      }),
      401,
      'UNAUTHORIZED',
    );
  });
});
