/**
 * Check 3 of the wallet login over real HTTP: the EIP-191 signer must be wallet_address, the
 * high-S twin of a valid signature is refused (EIP-2), and a signature that is not 65 bytes of
 * hex is a malformed request. The messages are valid templates naming wallet_address.
 *
 * Every check runs twice: with the signer recovered on the main thread (the service in this
 * process, SIGNATURE_WORKERS=0) and on worker threads (the built service as a child process,
 * SIGNATURE_WORKERS=2): the answers and error codes must not depend on where it is recovered.
 */
import { TestUser, signIn } from '../../support/wallet.js';
import {
  expectFailure,
  expectSignedIn,
  freshMessage,
  postInitialize,
  signedBody,
} from '../../support/signin-http.js';
import { highSTwin, isHighS, recoverAllowingHighS } from '../../support/signin-signatures.js';
import { startChildService } from '../../support/child-service.js';
import type { ChildService } from '../../support/child-service.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import type { StartedService, ServiceUnderTest } from '../../support/service-for-tests.js';

/** The built service with 2 signature workers, rate limits off as in the in-process service. */
async function builtServiceWithWorkers(): Promise<ChildService> {
  const child = await startChildService({ RATE_LIMITS_ENABLED: 'false', SIGNATURE_WORKERS: '2' });
  // A service whose workers were not running would pass every check below on its main thread.
  expect(child.output()).toMatch(/"workers":2[,}].*"msg":"signature workers started"/);
  return child;
}

describe.each<[string, () => ServiceUnderTest<StartedService>]>([
  ['recovered on the main thread', () => serviceForThisFile()],
  [
    'recovered by 2 worker threads',
    () => serviceForThisFile({}, { start: builtServiceWithWorkers }),
  ],
])('signer %s', (_where, startService) => {
  let user: TestUser;
  const { service } = startService();
  beforeAll(async () => {
    user = (await signIn(service.baseUrl)).user;
  });

  describe('the signer', () => {
    it('401 UNAUTHORIZED when another wallet signed the message', async () => {
      const answer = await postInitialize(
        service.baseUrl,
        await signedBody(user, freshMessage('sign-in', user), {}, new TestUser()),
      );
      expectFailure(answer, 401, 'UNAUTHORIZED');
    });

    it('401 UNAUTHORIZED when another wallet signed a registration for a new wallet', async () => {
      const newcomer = new TestUser();
      const answer = await postInitialize(
        service.baseUrl,
        await signedBody(
          newcomer,
          freshMessage('registration compact', newcomer),
          {},
          new TestUser(),
        ),
      );
      expectFailure(answer, 401, 'UNAUTHORIZED');
    });

    it("401 UNAUTHORIZED for the wallet's own signature of another message", async () => {
      const signature = await user.sign(
        freshMessage('sign-in', user, { timestamp: Date.now() - 1000 }),
      );
      const answer = await postInitialize(service.baseUrl, {
        wallet_address: user.address,
        message: freshMessage('sign-in', user),
        signature,
      });
      expectFailure(answer, 401, 'UNAUTHORIZED');
    });
  });

  describe("the high-S twin (s' = n - s, v flipped)", () => {
    it('401 UNAUTHORIZED although it recovers the same wallet; the low-S original then signs in', async () => {
      const body = await signedBody(user, freshMessage('sign-in', user));
      const twin = highSTwin(body.signature);
      expect(isHighS(body.signature)).toBe(false);
      expect(isHighS(twin)).toBe(true);
      expect(recoverAllowingHighS(body.message, twin)).toBe(user.address);

      expectFailure(
        await postInitialize(service.baseUrl, { ...body, signature: twin }),
        401,
        'UNAUTHORIZED',
      );
      expectSignedIn(await postInitialize(service.baseUrl, body), user, false);
    });

    it("401 UNAUTHORIZED for a new wallet's registration, which then succeeds with the original", async () => {
      const newcomer = new TestUser();
      const body = await signedBody(newcomer, freshMessage('registration-short compact', newcomer));
      expectFailure(
        await postInitialize(service.baseUrl, { ...body, signature: highSTwin(body.signature) }),
        401,
        'UNAUTHORIZED',
      );
      expectSignedIn(await postInitialize(service.baseUrl, body), newcomer, true);
    });
  });

  describe('a malformed signature with a valid template', () => {
    it.each<[string, (signature: string) => string]>([
      ['too short (64 bytes)', (signature) => signature.slice(0, -2)],
      ['too short (half)', (signature) => signature.slice(0, 66)],
      ['too long (66 bytes)', (signature) => `${signature}00`],
      ['not hex', (signature) => `${signature.slice(0, -2)}zz`],
      ['v outside {0, 1, 27, 28}', (signature) => `${signature.slice(0, -2)}1d`],
    ])('400 INVALID_ARGUMENT when %s', async (_, mangle) => {
      const body = await signedBody(user, freshMessage('sign-in', user));
      expectFailure(
        await postInitialize(service.baseUrl, { ...body, signature: mangle(body.signature) }),
        400,
        'INVALID_ARGUMENT',
      );
    });
  });
});
