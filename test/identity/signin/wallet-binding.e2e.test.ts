/**
 * Check 2 of the wallet login over real HTTP: the Wallet line must name wallet_address (any
 * case), and a registration template's Username line must be identical to the request's
 * username when both are present. The messages are signed by wallet_address itself, so the
 * signature check would pass: only the binding can be the reason for a 401.
 */
import { TestUser, signIn } from '../../support/wallet.js';
import {
  expectFailure,
  expectSignedIn,
  freshMessage,
  signAndPost,
} from '../../support/signin-http.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let user: TestUser;
const { service } = serviceForThisFile();
beforeAll(async () => {
  user = (await signIn(service.baseUrl)).user;
});

describe('the Wallet line', () => {
  it('401 UNAUTHORIZED when it names another wallet than wallet_address (signed by wallet_address)', async () => {
    const other = new TestUser();
    for (const variant of [
      'sign-in',
      'registration compact',
      'registration-short spaced',
    ] as const) {
      expectFailure(
        await signAndPost(
          service.baseUrl,
          user,
          freshMessage(variant, user, { wallet: other.address }),
        ),
        401,
        'UNAUTHORIZED',
      );
    }
  });

  it('401 UNAUTHORIZED when it differs in one hex digit', async () => {
    const address = user.address.toLowerCase();
    const altered = `${address.slice(0, -1)}${address.endsWith('0') ? '1' : '0'}`;
    expectFailure(
      await signAndPost(service.baseUrl, user, freshMessage('sign-in', user, { wallet: altered })),
      401,
      'UNAUTHORIZED',
    );
  });

  it('matches in any case (control): lowercase and uppercase Wallet lines sign in', async () => {
    for (const wallet of [user.address.toLowerCase(), `0x${user.address.slice(2).toUpperCase()}`]) {
      expectSignedIn(
        await signAndPost(service.baseUrl, user, freshMessage('sign-in', user, { wallet })),
        user,
        false,
      );
    }
  });
});

describe('the Username line of a registration template', () => {
  it('401 UNAUTHORIZED when the request username is another name', async () => {
    const newcomer = new TestUser();
    for (const variant of [
      'registration compact',
      'registration spaced',
      'registration-short compact',
      'registration-short spaced',
    ] as const) {
      const answer = await signAndPost(
        service.baseUrl,
        newcomer,
        freshMessage(variant, newcomer, { username: 'alice_one' }),
        { username: 'alice_two' },
      );
      expectFailure(answer, 401, 'UNAUTHORIZED');
    }
  });

  it('401 UNAUTHORIZED when the two differ only in case (they must be identical)', async () => {
    const newcomer = new TestUser();
    const answer = await signAndPost(
      service.baseUrl,
      newcomer,
      freshMessage('registration compact', newcomer, { username: 'Alice_case' }),
      { username: 'alice_case' },
    );
    expectFailure(answer, 401, 'UNAUTHORIZED');
  });

  it('registers when the two are identical (control), with a name the rejected attempts did not take', async () => {
    const newcomer = new TestUser();
    const message = freshMessage('registration compact', newcomer, { username: 'alice_two' });
    const answer = await signAndPost(service.baseUrl, newcomer, message, { username: 'alice_two' });
    expectSignedIn(answer, newcomer, true);
    expect(answer.body.user.username).toBe('alice_two');
  });
});
