/**
 * Phone accounts end to end over REST, reading each SMS code from the development outbox:
 * registration, 409 for a registered number, sign-in by an Ed25519 challenge signature made
 * with node:crypto, wrong signatures refused, MFA on a phone account, the revocation of an
 * abandoned registration (and its completion by the first key bundle), and the validation of
 * every member.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  expectAccessAccepted,
  expectAccessRefused,
  expectFailure,
  expectOk,
  setCookiesOf,
} from '../support/session-api.js';
import { KeyOwner } from '../support/key-bundles.js';
import { TestUser } from '../support/wallet.js';
import { challengeAndVerify, enableMfa, mfaBearer } from '../mfa/mfa-support.js';
import { PhoneFlow } from './phone-flow.js';
import { TestPhone, lastSmsCode } from './phone-support.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { siweMessage } from '../support/siwe.js';

let flow: PhoneFlow;
const { service, api } = serviceForThisFile();
beforeAll(async () => {
  flow = new PhoneFlow(api, service.dataDir);
});

it('registers a number, refuses it a second time with 409, and signs in with the identity key', async () => {
  const phone = new TestPhone();
  const sent = expectOk(await flow.sendSms(phone));
  expect(sent).toEqual({
    success: true,
    message: 'Code sent',
    expires_in: 300,
    resend_after: 60,
    code_length: 6,
  });
  const outbox = readFileSync(join(service.dataDir, 'sms-outbox.jsonl'), 'utf8');
  expect(outbox).toContain(phone.number);
  expect(
    service.logs.some(
      (line) =>
        line.msg === 'SMS written to the development outbox (SMS_PROVIDER=outbox), not sent',
    ),
  ).toBe(true);
  const code = lastSmsCode(service.dataDir, phone.number);
  const verified = expectOk(await flow.verifyCode(phone, code));
  expect(verified).toMatchObject({ registered: false, expires_in: 600 });
  expectFailure(await flow.verifyCode(phone, code), 410, 'GONE');

  const user = new TestUser();
  const reply = await api.post(
    '/api/v1/auth/phone/register',
    await flow.registrationBody(phone, verified.verification_token, user, { device_name: 'pixel' }),
  );
  const registered = expectOk(reply);
  expect(registered).toMatchObject({
    message: 'Account created',
    token_type: 'Bearer',
    expires_in: 900,
    user: { address: user.address.toLowerCase(), username: user.username, mfa_enabled: false },
  });
  expect(Object.keys(setCookiesOf(reply)).sort()).toEqual(['svc_csrf', 'svc_session']);
  await expectAccessAccepted(api, registered.access_token);
  // The verification token was spent.
  expectFailure(
    await api.post(
      '/api/v1/auth/phone/register',
      await flow.registrationBody(phone, verified.verification_token),
    ),
    410,
    'GONE',
  );

  // The same number again: the verification says so, and registering is a conflict.
  const again = await flow.verify(phone);
  expect(again.registered).toBe(true);
  expectFailure(
    await api.post(
      '/api/v1/auth/phone/register',
      await flow.registrationBody(phone, again.verification_token),
    ),
    409,
    'CONFLICT',
  );

  const challenge = await flow.challenge(phone);
  expect(challenge.wallet_address).toBe(user.address.toLowerCase());
  const lines = challenge.challenge.split('\n');
  expect(lines).toHaveLength(5);
  expect(lines[0]).toBe('Service Phone Login');
  expect(lines[1]).toBe(`Challenge: ${challenge.challenge_id}`);
  expect(lines[2]).toBe(`Phone: ${phone.hash}`);
  expect(lines[3]).toMatch(/^Nonce: [A-Za-z0-9_-]{43}$/);
  expect(Math.abs(Number(lines[4]!.slice('Timestamp: '.length)) - Date.now())).toBeLessThan(10_000);

  const login = await flow.login(challenge.challenge_id, phone.sign(challenge.challenge), {
    device_name: 'tablet',
  });
  const signedIn = expectOk(login);
  expect(signedIn).toMatchObject({
    message: 'Signed in',
    mfa_required: false,
    user: { address: user.address.toLowerCase() },
  });
  expect(Object.keys(setCookiesOf(login)).sort()).toEqual(['svc_csrf', 'svc_session']);
  await expectAccessAccepted(api, signedIn.access_token);
  expectFailure(
    await flow.login(challenge.challenge_id, phone.sign(challenge.challenge)),
    410,
    'GONE',
  );
});

it('refuses a challenge signed by another key, and malformed or unknown challenges', async () => {
  const phone = new TestPhone();
  await flow.register(phone);
  const challenge = await flow.challenge(phone);
  const stranger = generateKeyPairSync('ed25519').privateKey;
  expectFailure(
    await flow.login(challenge.challenge_id, phone.sign(challenge.challenge, stranger)),
    401,
    'UNAUTHORIZED',
  );
  expectFailure(
    await flow.login(challenge.challenge_id, phone.sign(`${challenge.challenge}\n`)),
    401,
    'UNAUTHORIZED',
  );
  expectFailure(await flow.login(challenge.challenge_id, 'not base64'), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await flow.login('A'.repeat(32), phone.sign(challenge.challenge)),
    404,
    'NOT_FOUND',
  );
  expectFailure(await flow.login('', phone.sign(challenge.challenge)), 400, 'INVALID_ARGUMENT');
  // A bad signature does not spend the challenge.
  expectOk(await flow.login(challenge.challenge_id, phone.sign(challenge.challenge)));
});

it('validates the SMS requests and the codes', async () => {
  const phone = new TestPhone();
  const other = new TestPhone();
  expectFailure(
    await api.post('/api/v1/auth/phone/send-sms', {
      phone_number: phone.number,
      phone_hash: other.hash,
    }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post('/api/v1/auth/phone/send-sms', {
      phone_number: phone.number,
      phone_hash: phone.legacyHash,
    }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post('/api/v1/auth/phone/send-sms', {
      phone_number: '0155512345',
      phone_hash: phone.hash,
    }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post('/api/v1/auth/phone/send-sms', {
      phone_number: phone.number,
      phone_hash: phone.hash.toUpperCase(),
    }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await flow.verifyCode(phone, '123456'), 404, 'NOT_FOUND');
  expectOk(await flow.sendSms(phone));
  const code = lastSmsCode(service.dataDir, phone.number);
  expectFailure(
    await flow.verifyCode(phone, code === '000000' ? '000001' : '000000'),
    401,
    'INVALID_CODE',
  );
  expectFailure(await flow.verifyCode(phone, '12345'), 400, 'INVALID_ARGUMENT');
  expectOk(await flow.verifyCode(phone, code));
  expectFailure(
    await api.post('/api/v1/auth/phone/login-challenge', { verification_token: 'x'.repeat(43) }),
    401,
    'UNAUTHORIZED',
  );
  expectFailure(await api.post('/api/v1/auth/phone/login-challenge', {}), 400, 'INVALID_ARGUMENT');
  // An unregistered number has no login.
  const { verification_token } = await flow.verify(other);
  expectFailure(
    await api.post('/api/v1/auth/phone/login-challenge', { verification_token }),
    404,
    'NOT_FOUND',
  );
});

it('refuses a Sign-In with Ethereum message: RegisterPhone keeps the registration templates', async () => {
  const phone = new TestPhone();
  const user = new TestUser();
  const { verification_token } = await flow.verify(phone);
  const message = siweMessage(user.address);
  const signed = { message, signature: await user.sign(message) };
  const siwe = await flow.registrationBody(phone, verification_token, user, signed);
  expectFailure(await api.post('/api/v1/auth/phone/register', siwe), 401, 'UNAUTHORIZED');
  // Refused after the proof: the number's verification is still usable with a template.
  const template = await flow.registrationBody(phone, verification_token, user);
  expectOk(await api.post('/api/v1/auth/phone/register', template));
});

it('accepts a registration without phone_hash_signature with a warning, and refuses a bad one', async () => {
  const phone = new TestPhone();
  const { verification_token } = await flow.verify(phone);
  const forged = await flow.registrationBody(phone, verification_token, new TestUser(), {
    phone_hash_signature: phone.sign('something else'),
  });
  expectFailure(await api.post('/api/v1/auth/phone/register', forged), 401, 'UNAUTHORIZED');
  expectFailure(
    await api.post('/api/v1/auth/phone/register', { ...forged, identity_public_key: 'short' }),
    400,
    'INVALID_ARGUMENT',
  );
  const unsigned = await flow.registrationBody(phone, verification_token, new TestUser(), {
    phone_hash_signature: '',
  });
  expectOk(await api.post('/api/v1/auth/phone/register', unsigned));
  expect(
    service.logs.some(
      (line) =>
        line.msg === 'phone registration without phone_hash_signature accepted (transition period)',
    ),
  ).toBe(true);
});

it('makes a phone sign-in of an MFA account pending until VerifyMfa', async () => {
  const phone = new TestPhone();
  const { body } = await flow.register(phone);
  const user = await enableMfa(api, { accessToken: body.access_token } as never);
  const challenge = await flow.challenge(phone);
  const pending = expectOk(
    await flow.login(challenge.challenge_id, phone.sign(challenge.challenge)),
  );
  expect(pending).toMatchObject({
    mfa_required: true,
    access_token: '',
    session_id: '',
    user: { mfa_enabled: true },
  });
  expectFailure(await api.listSessions(pending.mfa_token), 401, 'UNAUTHORIZED');
  const done = expectOk(
    await challengeAndVerify(api, mfaBearer(pending.mfa_token), {
      code: await user.app.nextCode(),
    }),
  );
  expect(done).toMatchObject({ sign_in_completed: true });
  const sessions = expectOk(await api.listSessions(done.access_token)).sessions as { id: string }[];
  expect(sessions.some((session) => session.id === done.session_id)).toBe(true);
});

it('revokes an abandoned registration with a fresh verification of the number', async () => {
  const phone = new TestPhone();
  const { user, body } = await flow.register(phone);
  const { verification_token } = await flow.verify(phone);
  const revoked = expectOk(
    await api.post('/api/v1/auth/phone-revoke-abandoned', { verification_token }),
  );
  expect(revoked).toEqual({
    success: true,
    message: 'The partial registration was revoked',
    wallet_address: user.address.toLowerCase(),
  });
  await expectAccessRefused(api, body.access_token);
  expectFailure(await api.refresh(body.refresh_token), 401, 'UNAUTHORIZED');
  expectFailure(
    await api.post('/api/v1/auth/phone-revoke-abandoned', { verification_token }),
    410,
    'GONE',
  );

  // The number, the wallet and the username are free again.
  const fresh = await flow.verify(phone);
  expect(fresh.registered).toBe(false);
  expectFailure(
    await api.post('/api/v1/auth/phone-revoke-abandoned', {
      verification_token: fresh.verification_token,
    }),
    404,
    'NOT_FOUND',
  );
  expectOk(
    await api.post(
      '/api/v1/auth/phone/register',
      await flow.registrationBody(phone, fresh.verification_token, user),
    ),
  );
});

it('completes a registration with its first key bundle, after which it cannot be revoked as abandoned', async () => {
  const phone = new TestPhone();
  const { user, body } = await flow.register(phone);
  expectOk(
    await api.post('/api/v1/keys', await new KeyOwner(user).bundle(), {
      authorization: `Bearer ${body.access_token}`,
    }),
  );
  const { verification_token } = await flow.verify(phone);
  expectFailure(
    await api.post('/api/v1/auth/phone-revoke-abandoned', { verification_token }),
    409,
    'CONFLICT',
  );
  await expectAccessAccepted(api, body.access_token);
});

it('reports the lock state of a number without revealing whether it is registered', async () => {
  const unknown = new TestPhone();
  expect(
    expectOk(await api.get(`/api/v1/auth/phone/lockout-status?phone=${unknown.hash}`)),
  ).toEqual({
    success: true,
    message: 'Not locked',
    failed_attempts: 0,
    max_attempts: 5,
    locked: false,
    locked_until: '',
    retry_after: 0,
  });
  expectFailure(await api.get('/api/v1/auth/phone/lockout-status'), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await api.get(`/api/v1/auth/phone/lockout-status?phone=${unknown.number}`),
    400,
    'INVALID_ARGUMENT',
  );
});
