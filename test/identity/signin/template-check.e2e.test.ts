/**
 * Check 1 of the wallet login over real HTTP: the message must equal a template byte for byte,
 * otherwise 401 UNAUTHORIZED, decided before the signature is looked at. Every message here is
 * properly signed by the wallet, so only the template can be the reason.
 */
import { TestUser, signIn } from '../../support/wallet.js';
import {
  expectFailure,
  expectSignedIn,
  freshMessage,
  postInitialize,
  signAndPost,
} from '../../support/signin-http.js';
import { siweMessage } from '../../support/siwe.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let user: TestUser;
const { service } = serviceForThisFile();
beforeAll(async () => {
  user = (await signIn(service.baseUrl)).user;
});

const signInTemplate = () => freshMessage('sign-in', user);

/** A Sign-In with Ethereum message (issue #28) for the default SIWE_DOMAINS, built by viem. */
const siwe = () => siweMessage(user.address);

const NOT_A_TEMPLATE: [string, () => string][] = [
  // Neither a template nor an EIP-4361 message in canonical form: the same 401.
  [
    'an EIP-4361 message with its address not in EIP-55 form',
    () => siwe().replace(user.address, user.address.toLowerCase()),
  ],
  ['an EIP-4361 message with a trailing newline', () => `${siwe()}\n`],
  ['an EIP-4361 message without its Nonce line', () => siwe().replace(/\nNonce: \w+/, '')],
  ['random text', () => `hello, please let me in ${Date.now()}`],
  ['CRLF line endings', () => signInTemplate().replaceAll('\n', '\r\n')],
  ['a trailing newline', () => `${signInTemplate()}\n`],
  ['a leading space', () => ` ${signInTemplate()}`],
  ['a trailing space', () => `${signInTemplate()} `],
  ['another SERVICE_NAME', () => freshMessage('sign-in', user, { service: 'Other Service' })],
  [
    'template 1 without the blank line after the title',
    () => signInTemplate().replace('Service Sign In\n\n', 'Service Sign In\n'),
  ],
  [
    'template 1 without the blank line after the statement',
    () => signInTemplate().replace('to Service.\n\n', 'to Service.\n'),
  ],
  [
    'template 1 with two blank lines after the title',
    () => signInTemplate().replace('Service Sign In\n\n', 'Service Sign In\n\n\n'),
  ],
  [
    'template 2 with a blank line only before Wallet',
    () =>
      freshMessage('registration compact', user).replace('with Service.\n', 'with Service.\n\n'),
  ],
  [
    'template 3 with a blank line before Timestamp',
    () =>
      freshMessage('registration-short compact', user).replace('\nTimestamp:', '\n\nTimestamp:'),
  ],
];

describe('a signed message that is not a template', () => {
  it('is accepted in its template form (control)', async () => {
    expectSignedIn(await signAndPost(service.baseUrl, user, signInTemplate()), user, false);
  });

  it.each(NOT_A_TEMPLATE)('401 UNAUTHORIZED for %s', async (_, build) => {
    const answer = await signAndPost(service.baseUrl, user, build());
    expectFailure(answer, 401, 'UNAUTHORIZED');
    expect(answer.setCookies).toEqual([]);
  });

  it('401 UNAUTHORIZED for a new wallet too (not 400 username required)', async () => {
    const newcomer = new TestUser();
    expectFailure(
      await signAndPost(
        service.baseUrl,
        newcomer,
        `${freshMessage('registration compact', newcomer)}\n`,
      ),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('the template is checked before the signature', () => {
  const GARBAGE = ['zz', '0x1234', 'not a signature at all'];

  it('a garbage signature with a valid template is a malformed request: 400 INVALID_ARGUMENT (control)', async () => {
    for (const signature of GARBAGE) {
      const answer = await postInitialize(service.baseUrl, {
        wallet_address: user.address,
        message: signInTemplate(),
        signature,
      });
      expectFailure(answer, 400, 'INVALID_ARGUMENT');
    }
  });

  it('the same garbage signature with a message that is not a template: 401 UNAUTHORIZED', async () => {
    for (const signature of GARBAGE) {
      for (const [, build] of NOT_A_TEMPLATE) {
        const answer = await postInitialize(service.baseUrl, {
          wallet_address: user.address,
          message: build(),
          signature,
        });
        expectFailure(answer, 401, 'UNAUTHORIZED');
      }
    }
  });
});
