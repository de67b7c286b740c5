/** The CAPTCHA gate on a running service, against a local fake siteverify endpoint. */
import { TestUser } from '../../support/wallet.js';
import { startFakeCaptchaProvider } from './fake-captcha-provider.js';
import type { FakeCaptchaProvider } from './fake-captcha-provider.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let provider: FakeCaptchaProvider;
beforeAll(async () => {
  provider = await startFakeCaptchaProvider('operator-secret');
});
const { service } = serviceForThisFile(() => ({
  CAPTCHA_PROVIDER: 'turnstile',
  CAPTCHA_SECRET: 'operator-secret',
  CAPTCHA_VERIFY_URL: provider.url,
}));
afterAll(async () => {
  await provider.close();
});

const initialize = async (extra: Record<string, string>) => {
  const response = await fetch(`${service.baseUrl}/api/v1/initialize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...(await new TestUser().initializeBody('register')), ...extra }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

it('refuses a sign-in without a CAPTCHA answer, or with one the provider refuses', async () => {
  expect(await initialize({})).toMatchObject({
    status: 400,
    body: { success: false, code: 'CAPTCHA_REQUIRED' },
  });
  expect(await initialize({ captcha_token: 'wrong' })).toMatchObject({
    status: 400,
    body: { success: false, code: 'CAPTCHA_REQUIRED' },
  });
});

it('accepts a sign-in whose answer the provider accepts, sending it the secret and the client IP', async () => {
  expect(await initialize({ captcha_token: 'good' })).toMatchObject({
    status: 200,
    body: { success: true, is_new_user: true },
  });
  expect(provider.received.at(-1)?.form).toEqual({
    secret: 'operator-secret',
    response: 'good',
    remoteip: '127.0.0.1',
  });
});

it('answers 503 when the provider fails, and leaves other routes alone', async () => {
  expect(await initialize({ captcha_token: 'fail' })).toMatchObject({
    status: 503,
    body: { success: false, code: 'CAPTCHA_UNAVAILABLE' },
  });
  expect((await fetch(`${service.baseUrl}/api/v1/version`)).status).toBe(200);
});
