/**
 * Account creation by Initialize over real HTTP: a wallet without an account needs a
 * registration template (template 1 gives 400), the username must follow the username rules
 * (400) and be free, case-insensitively (409 CONFLICT). Every message here is a fresh, valid,
 * correctly signed template, so only the account rules can be the reason.
 */
import { TestUser } from '../../support/wallet.js';
import {
  expectFailure,
  expectNoAccount,
  expectSignedIn,
  freshMessage,
  signAndPost,
} from '../../support/signin-http.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

const { service } = serviceForThisFile();

describe('a wallet without an account', () => {
  it('400 INVALID_ARGUMENT (username required) for template 1, also with a request username', async () => {
    const user = new TestUser();
    expectFailure(
      await signAndPost(service.baseUrl, user, freshMessage('sign-in', user)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await signAndPost(service.baseUrl, user, freshMessage('sign-in', user), {
        username: user.username,
      }),
      400,
      'INVALID_ARGUMENT',
    );
    await expectNoAccount(service.baseUrl, user);
  });
});

describe('the username rules', () => {
  it.each([
    ['1abc', 'starts with a digit'],
    ['ab', 'is too short'],
    ['_abc', 'starts with an underscore'],
    ['ab-cd', 'has a hyphen'],
    ['abc def', 'has a space'],
    [`a${'b'.repeat(32)}`, 'has 33 characters'],
  ])('400 INVALID_ARGUMENT for "%s" (%s), in templates 2 and 3', async (username) => {
    const user = new TestUser();
    for (const variant of ['registration compact', 'registration-short spaced'] as const) {
      expectFailure(
        await signAndPost(service.baseUrl, user, freshMessage(variant, user, { username })),
        400,
        'INVALID_ARGUMENT',
      );
    }
    await expectNoAccount(service.baseUrl, user);
  });

  it('accepts the bounds (control): 3 and 32 characters, digits and underscores after a letter', async () => {
    for (const username of ['abc', `z${'9_'.repeat(15)}a`]) {
      const user = new TestUser();
      const answer = await signAndPost(
        service.baseUrl,
        user,
        freshMessage('registration-short compact', user, { username }),
      );
      expectSignedIn(answer, user, true);
      expect(answer.body.user.username).toBe(username);
    }
  });
});

describe('a username held by another wallet', () => {
  const holder = new TestUser();
  beforeAll(async () => {
    const answer = await signAndPost(
      service.baseUrl,
      holder,
      freshMessage('registration compact', holder, { username: 'bob', name: 'Bob' }),
    );
    expectSignedIn(answer, holder, true);
  });

  it.each(['bob', 'Bob', 'BOB'])(
    '409 CONFLICT for "%s", and the second wallet gets no account',
    async (username) => {
      const user = new TestUser();
      for (const variant of ['registration spaced', 'registration-short compact'] as const) {
        expectFailure(
          await signAndPost(service.baseUrl, user, freshMessage(variant, user, { username })),
          409,
          'CONFLICT',
        );
      }
      await expectNoAccount(service.baseUrl, user);
    },
  );

  it("left the holder's account as it was, and the second wallet can register another name", async () => {
    const answer = await signAndPost(service.baseUrl, holder, freshMessage('sign-in', holder));
    expectSignedIn(answer, holder, false);
    expect(answer.body.user).toMatchObject({ username: 'bob', display_name: 'Bob' });
    const user = new TestUser();
    expectFailure(
      await signAndPost(
        service.baseUrl,
        user,
        freshMessage('registration compact', user, { username: 'Bob' }),
      ),
      409,
      'CONFLICT',
    );
    const registered = await signAndPost(
      service.baseUrl,
      user,
      freshMessage('registration compact', user, { username: 'Bobby' }),
    );
    expectSignedIn(registered, user, true);
    expect(registered.body.user.username).toBe('bobby');
  });
});
