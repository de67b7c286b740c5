/**
 * The spam limit (messages.proto, SendMessage; moderation.proto, AnswerChallenge) on a running
 * service with the abuse controls on and a local fake CAPTCHA provider: a new account may write
 * to SPAM_STRANGER_LIMIT strangers, the next one is `428 CHALLENGE_REQUIRED` while people
 * already written to stay reachable, and a CAPTCHA answer lifts the challenge.
 */
import { startFakeCaptchaProvider } from '../limits/captcha/fake-captcha-provider.js';
import type { FakeCaptchaProvider } from '../limits/captcha/fake-captcha-provider.js';
import { requestFrom } from '../support/http-from.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { TestUser } from '../support/wallet.js';

let provider: FakeCaptchaProvider;
beforeAll(async () => {
  provider = await startFakeCaptchaProvider('operator-secret');
});
const { service, api } = serviceForThisFile(() => ({
  RATE_LIMITS_ENABLED: 'true',
  SPAM_STRANGER_LIMIT: '2',
  CAPTCHA_PROVIDER: 'turnstile',
  CAPTCHA_SECRET: 'operator-secret',
  CAPTCHA_VERIFY_URL: provider.url,
}));
afterAll(async () => {
  await provider.close();
});

let clients = 0;
/**
 * Registers with a CAPTCHA answer (the gate asks one at sign-in too), each from its own client
 * address so that the per-IP sign-in bucket stays out of the way; answers the access token.
 */
const register = async (user: TestUser): Promise<string> => {
  const reply = await requestFrom(`${service.baseUrl}/api/v1/initialize`, `127.0.45.${++clients}`, {
    method: 'POST',
    json: { ...(await user.initializeBody('register')), captcha_token: 'good' },
  });
  expect(reply.status).toBe(200);
  return (JSON.parse(reply.body) as { access_token: string }).access_token;
};

let counter = 0;
const sendTo = (token: string, to: TestUser) =>
  api.post(
    '/api/v1/send',
    { client_message_id: `spam-${++counter}`, recipient_address: to.address, ciphertext: 'AAEC' },
    { authorization: `Bearer ${token}` },
  );

it('challenges a new account after SPAM_STRANGER_LIMIT strangers, until a CAPTCHA answer', async () => {
  const strangers = [new TestUser(), new TestUser(), new TestUser()];
  const sender = await register(new TestUser());
  for (const stranger of strangers) await register(stranger);
  const [first, second, third] = strangers as [TestUser, TestUser, TestUser];

  expectOk(await sendTo(sender, first));
  expectOk(await sendTo(sender, second));
  expectFailure(await sendTo(sender, third), 428, 'CHALLENGE_REQUIRED');
  // Someone already written to is not a new stranger.
  expectOk(await sendTo(sender, first));

  const challenge = (body: object) =>
    api.post('/api/v1/moderation/challenge', body, { authorization: `Bearer ${sender}` });
  expectFailure(await challenge({}), 400, 'CAPTCHA_REQUIRED');
  expectFailure(await challenge({ captcha_token: 'wrong' }), 400, 'CAPTCHA_REQUIRED');
  expectOk(await challenge({ captcha_token: 'good' }));
  expectOk(await sendTo(sender, third));
});
