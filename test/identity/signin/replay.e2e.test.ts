/**
 * Check 5 of the wallet login over real HTTP: an accepted signature is spent, and presenting it
 * again, in any spelling of the same signature (hex case, with or without 0x, v as 27/28 or as
 * the recovery bit 0/1), gives 401 REPLAY_DETECTED.
 */
import { TestUser, signIn } from '../../support/wallet.js';
import {
  expectFailure,
  expectSignedIn,
  freshMessage,
  postInitialize,
  signedBody,
} from '../../support/signin-http.js';
import { respellings, splitSignature } from '../../support/signin-signatures.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let user: TestUser;
const { service } = serviceForThisFile();
beforeAll(async () => {
  user = (await signIn(service.baseUrl)).user;
});

/** A fresh template-1 body whose signature has the given v (each message is signed once). */
async function bodyWithV(v: 27 | 28) {
  for (;;) {
    const body = await signedBody(user, freshMessage('sign-in', user));
    if (splitSignature(body.signature).v === v) return body;
  }
}

const SPELLINGS = ['uppercase hex', 'without 0x', 'v as recovery bit'] as const;

describe('a spent signature', () => {
  it('401 REPLAY_DETECTED when the accepted request is sent again', async () => {
    const body = await signedBody(user, freshMessage('sign-in', user));
    expectSignedIn(await postInitialize(service.baseUrl, body), user, false);
    const replay = await postInitialize(service.baseUrl, body);
    expectFailure(replay, 401, 'REPLAY_DETECTED');
    expect(replay.setCookies).toEqual([]);
  });

  it('401 REPLAY_DETECTED for a replayed registration (not a sign-in of the new account)', async () => {
    const newcomer = new TestUser();
    const body = await signedBody(newcomer, freshMessage('registration compact', newcomer));
    expectSignedIn(await postInitialize(service.baseUrl, body), newcomer, true);
    expectFailure(await postInitialize(service.baseUrl, body), 401, 'REPLAY_DETECTED');
  });

  it.each([27, 28] as const)(
    '401 REPLAY_DETECTED in every other spelling of a signature with v %i',
    async (v) => {
      const body = await bodyWithV(v);
      expectSignedIn(await postInitialize(service.baseUrl, body), user, false);
      const spellings = respellings(body.signature);
      expect(spellings['v as recovery bit'].slice(-2)).toBe(v === 27 ? '00' : '01');
      // All three at once: uppercase, no 0x, v as the recovery bit.
      const combined = `${body.signature.slice(2, -2).toUpperCase()}0${v - 27}`;
      for (const signature of [...Object.values(spellings), combined]) {
        expect(signature).not.toBe(body.signature);
        expectFailure(
          await postInitialize(service.baseUrl, { ...body, signature }),
          401,
          'REPLAY_DETECTED',
        );
      }
    },
  );
});

describe('every spelling is the same signature (control)', () => {
  it.each(SPELLINGS)(
    'a signature first presented %s signs in, and its original spelling is then a replay',
    async (spelling) => {
      for (const v of [27, 28] as const) {
        const body = await bodyWithV(v);
        expectSignedIn(
          await postInitialize(service.baseUrl, {
            ...body,
            signature: respellings(body.signature)[spelling],
          }),
          user,
          false,
        );
        expectFailure(await postInitialize(service.baseUrl, body), 401, 'REPLAY_DETECTED');
      }
    },
  );
});
