/**
 * Phone abuse controls with the limits on (the per-IP and per-RPC buckets raised, so that only
 * what is tested can refuse): the per-number SMS spacing, the lockout of a number after 5 wrong
 * codes as lockout-status reports it, and the lock of a registered number being its account's.
 */
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForEachTest } from '../support/service-for-tests.js';
import { PhoneFlow } from './phone-flow.js';
import { TestPhone, lastSmsCode } from './phone-support.js';

const roomy = { limit: 10_000, burst: 10_000 };
const rpcs = [
  'SendSmsCode',
  'VerifySmsCode',
  'RegisterPhone',
  'CreatePhoneLoginChallenge',
  'PhoneLogin',
].map((rpc) => [`PhoneAuthService.${rpc}`, roomy]);
const overrides = {
  ip: roomy,
  user: roomy,
  auth: roomy,
  default: roomy,
  'AuthService.Initialize': roomy,
  ...Object.fromEntries(rpcs),
};
let flow: PhoneFlow;
// A service per test: every lockout also locks the client IP (127.0.0.1), as sign-in failures do.
const { service, api } = serviceForEachTest({
  RATE_LIMITS_ENABLED: 'true',
  RATE_LIMIT_OVERRIDES: JSON.stringify(overrides),
});
beforeEach(() => {
  flow = new PhoneFlow(api, service.dataDir);
});

const status = async (phone: TestPhone) =>
  expectOk(await api.get(`/api/v1/auth/phone/lockout-status?phone=${phone.hash}`));

it('sends one SMS per number per minute', async () => {
  const phone = new TestPhone();
  expectOk(await flow.sendSms(phone));
  const again = await flow.sendSms(phone);
  expectFailure(again, 429, 'RATE_LIMIT_EXCEEDED');
  expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(55);
  // Another number is not affected.
  expectOk(await flow.sendSms(new TestPhone()));
});

it('locks a number after 5 wrong codes, and lockout-status reports it', async () => {
  const phone = new TestPhone();
  expectOk(await flow.sendSms(phone));
  const code = lastSmsCode(service.dataDir, phone.number);
  const wrong = code === '000000' ? '000001' : '000000';
  for (let failure = 1; failure <= 4; failure++) {
    expectFailure(await flow.verifyCode(phone, wrong), 401, 'INVALID_CODE');
    expect(await status(phone)).toMatchObject({ failed_attempts: failure, locked: false });
  }
  expectFailure(await flow.verifyCode(phone, wrong), 401, 'INVALID_CODE');
  const locked = await status(phone);
  expect(locked).toMatchObject({ failed_attempts: 0, max_attempts: 5, locked: true });
  expect(locked.retry_after).toBeGreaterThan(50);
  expect(Date.parse(locked.locked_until)).toBeGreaterThan(Date.now() + 50_000);
  // While locked, even the right code is refused, and no SMS is sent.
  const refused = await flow.verifyCode(phone, code);
  expectFailure(refused, 429, 'LOCKED_OUT');
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(50);
  expectFailure(await flow.sendSms(phone), 429, 'LOCKED_OUT');
});

it('counts the failures of a registered number on its account', async () => {
  const phone = new TestPhone();
  const { user } = await flow.register(phone);
  // Failed wallet sign-ins of the account lock its number as well.
  for (let i = 0; i < 5; i++) {
    const body = await user.initializeBody('sign-in');
    expectFailure(
      await api.post('/api/v1/initialize', { ...body, message: `${body.message}\n` }),
      401,
      'UNAUTHORIZED',
    );
  }
  expect(await status(phone)).toMatchObject({ locked: true });
  expectFailure(await flow.verifyCode(phone, '123456'), 429, 'LOCKED_OUT');
});
