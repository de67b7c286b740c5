/**
 * Check 4 of the wallet login over real HTTP: the template's Timestamp (milliseconds) must be
 * within 5 minutes of server time either way, otherwise 401 EXPIRED_SIGNATURE. The messages
 * are valid templates correctly signed by wallet_address.
 */
import { TestUser, signIn } from '../../support/wallet.js';
import {
  expectFailure,
  expectNoAccount,
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

const MINUTE = 60_000;
const TOLERANCE = 5 * MINUTE;

describe('the Timestamp line', () => {
  it.each<[string, () => number]>([
    ['5 min + 5 s in the past', () => Date.now() - TOLERANCE - 5000],
    ['5 min + 5 s in the future', () => Date.now() + TOLERANCE + 5000],
    ['an hour in the past', () => Date.now() - 60 * MINUTE],
    ['in seconds instead of milliseconds', () => Math.floor(Date.now() / 1000)],
  ])('401 EXPIRED_SIGNATURE when %s', async (_, timestamp) => {
    const answer = await signAndPost(
      service.baseUrl,
      user,
      freshMessage('sign-in', user, { timestamp: timestamp() }),
    );
    expectFailure(answer, 401, 'EXPIRED_SIGNATURE');
    expect(answer.setCookies).toEqual([]);
  });

  it('401 EXPIRED_SIGNATURE for a registration too, and no account is created', async () => {
    const newcomer = new TestUser();
    const stale = freshMessage('registration compact', newcomer, {
      timestamp: Date.now() - TOLERANCE - 5000,
    });
    expectFailure(await signAndPost(service.baseUrl, newcomer, stale), 401, 'EXPIRED_SIGNATURE');
    await expectNoAccount(service.baseUrl, newcomer);
  });

  it.each<[string, () => number]>([
    ['4 min 30 s in the past', () => Date.now() - TOLERANCE + 30_000],
    ['4 min 30 s in the future', () => Date.now() + TOLERANCE - 30_000],
  ])('is accepted %s (control)', async (_, timestamp) => {
    expectSignedIn(
      await signAndPost(
        service.baseUrl,
        user,
        freshMessage('sign-in', user, { timestamp: timestamp() }),
      ),
      user,
      false,
    );
  });
});
