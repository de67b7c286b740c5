/**
 * Check 7 of the wallet login over real HTTP, with SERVICE_POW_DIFFICULTY_BITS=10: creating
 * an account needs a pow_nonce such that sha256(message || pow_nonce) has at least 10 leading
 * zero bits (400 POW_REQUIRED otherwise); returning users are exempt. The nonces come from the
 * test's own solver (test/support/signin-pow.ts), not the service's.
 */
import { TestUser } from '../../support/wallet.js';
import {
  expectFailure,
  expectNoAccount,
  expectSignedIn,
  freshMessage,
  postInitialize,
  signAndPost,
} from '../../support/signin-http.js';
import { failingNonce, leadingZeroBits, solvePow } from '../../support/signin-pow.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

const BITS = 10;

const { service } = serviceForThisFile({ SERVICE_POW_DIFFICULTY_BITS: String(BITS) });

describe('a new account', () => {
  it('400 POW_REQUIRED without pow_nonce, in templates 2 and 3', async () => {
    const user = new TestUser();
    for (const variant of ['registration compact', 'registration-short spaced'] as const) {
      expectFailure(
        await signAndPost(service.baseUrl, user, freshMessage(variant, user)),
        400,
        'POW_REQUIRED',
      );
    }
    await expectNoAccount(service.baseUrl, user);
  });

  it('accepts the same signed message again with the nonce POW_REQUIRED asked for (a refusal spends nothing)', async () => {
    const user = new TestUser();
    const message = freshMessage('registration compact', user);
    const body = { wallet_address: user.address, message, signature: await user.sign(message) };
    expectFailure(await postInitialize(service.baseUrl, body), 400, 'POW_REQUIRED');
    expectSignedIn(
      await postInitialize(service.baseUrl, { ...body, pow_nonce: solvePow(message, BITS) }),
      user,
      true,
    );
    // Once accepted, the signature is spent.
    expectFailure(
      await postInitialize(service.baseUrl, { ...body, pow_nonce: solvePow(message, BITS) }),
      401,
      'REPLAY_DETECTED',
    );
  });

  it('400 POW_REQUIRED with a nonce of fewer than 10 leading zero bits', async () => {
    const user = new TestUser();
    const message = freshMessage('registration compact', user);
    const nonce = failingNonce(message, BITS);
    expect(leadingZeroBits(message, nonce)).toBeLessThan(BITS);
    expectFailure(
      await signAndPost(service.baseUrl, user, message, { pow_nonce: nonce }),
      400,
      'POW_REQUIRED',
    );
    await expectNoAccount(service.baseUrl, user);
  });

  it('400 POW_REQUIRED for a nonce solved for another message', async () => {
    const user = new TestUser();
    const now = Date.now();
    const message = freshMessage('registration compact', user, { timestamp: now });
    const other = freshMessage('registration compact', user, { timestamp: now - 1000 });
    let counter = 0;
    // The first nonce that solves the other message but not this one.
    while (
      leadingZeroBits(other, String(counter)) < BITS ||
      leadingZeroBits(message, String(counter)) >= BITS
    )
      counter++;
    const nonce = String(counter);
    expectFailure(
      await signAndPost(service.baseUrl, user, message, { pow_nonce: nonce }),
      400,
      'POW_REQUIRED',
    );
  });

  it.each([
    'registration compact',
    'registration spaced',
    'registration-short compact',
    'registration-short spaced',
  ] as const)('200 with a solved nonce (%s)', async (variant) => {
    const user = new TestUser();
    const message = freshMessage(variant, user);
    const nonce = solvePow(message, BITS);
    expect(leadingZeroBits(message, nonce)).toBeGreaterThanOrEqual(BITS);
    expectSignedIn(
      await signAndPost(service.baseUrl, user, message, { pow_nonce: nonce }),
      user,
      true,
    );
  });
});

describe('a returning user', () => {
  const user = new TestUser();
  beforeAll(async () => {
    const message = freshMessage('registration compact', user);
    expectSignedIn(
      await signAndPost(service.baseUrl, user, message, { pow_nonce: solvePow(message, BITS) }),
      user,
      true,
    );
  });

  it('signs in with template 1 without pow_nonce: 200', async () => {
    expectSignedIn(
      await signAndPost(service.baseUrl, user, freshMessage('sign-in', user)),
      user,
      false,
    );
  });

  it('signs in with a registration template without pow_nonce: 200', async () => {
    expectSignedIn(
      await signAndPost(service.baseUrl, user, freshMessage('registration-short compact', user)),
      user,
      false,
    );
  });
});
