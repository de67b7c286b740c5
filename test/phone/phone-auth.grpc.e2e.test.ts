/**
 * The phone flow through a native gRPC client, with the SMS code read from the development
 * outbox: SendSmsCode, VerifySmsCode, RegisterPhone (and 409 for the same number), the login
 * challenge signed with an Ed25519 key from node:crypto, a wrong signature refused, and the
 * lockout status.
 */
import { generateKeyPairSync } from 'node:crypto';
import { grpcClient } from '../support/grpc-client.js';
import type { GrpcServiceClient } from '../support/grpc-client.js';
import { Api } from '../support/session-api.js';
import { bearer, call, failure, ok, setCookies } from '../identity/grpc/grpc-call.js';
import { PhoneFlow } from './phone-flow.js';
import { TestPhone, lastSmsCode } from './phone-support.js';
import { serviceForThisFile } from '../support/service-for-tests.js';

let phoneService: GrpcServiceClient;
let sessions: GrpcServiceClient;
let flow: PhoneFlow;
const { service } = serviceForThisFile();
beforeAll(async () => {
  phoneService = grpcClient(
    service.grpcAddress,
    'service/v1/phone.proto',
    'service.v1.PhoneAuthService',
  );
  sessions = grpcClient(
    service.grpcAddress,
    'service/v1/session.proto',
    'service.v1.SessionService',
  );
  // Only to build request bodies (the signed registration message): every call below is gRPC.
  flow = new PhoneFlow(new Api(service.baseUrl), service.dataDir);
});
afterAll(async () => {
  phoneService.close();
  sessions.close();
});

async function verificationToken(phone: TestPhone): Promise<string> {
  const sent = (
    await ok(phoneService, 'SendSmsCode', { phone_number: phone.number, phone_hash: phone.hash })
  ).response;
  expect(sent).toMatchObject({ expires_in: 300, resend_after: 60, code_length: 6 });
  const wrong = await call(phoneService, 'VerifySmsCode', {
    phone_hash: phone.hash,
    code: lastSmsCode(service.dataDir, phone.number) === '000000' ? '000001' : '000000',
  });
  expect(failure(wrong)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'INVALID_CODE' });
  const verified = (
    await ok(phoneService, 'VerifySmsCode', {
      phone_hash: phone.hash,
      code: lastSmsCode(service.dataDir, phone.number),
    })
  ).response;
  return verified.verification_token;
}

it('registers, refuses the number again with ALREADY_EXISTS, and signs in with the identity key', async () => {
  const phone = new TestPhone();
  const registered = await ok(
    phoneService,
    'RegisterPhone',
    await flow.registrationBody(phone, await verificationToken(phone)),
  );
  expect(registered.response).toMatchObject({ message: 'Account created', token_type: 'Bearer' });
  expect(Object.keys(setCookies(registered.headers).values).sort()).toEqual([
    'svc_csrf',
    'svc_session',
  ]);
  await ok(sessions, 'ListSessions', {}, bearer(registered.response.access_token));

  const duplicate = await call(
    phoneService,
    'RegisterPhone',
    await flow.registrationBody(phone, await verificationToken(phone)),
  );
  expect(failure(duplicate)).toMatchObject({ code: 'ALREADY_EXISTS', reason: 'CONFLICT' });

  const challenge = (
    await ok(phoneService, 'CreatePhoneLoginChallenge', {
      verification_token: await verificationToken(phone),
    })
  ).response;
  expect(challenge.challenge.split('\n')[2]).toBe(`Phone: ${phone.hash}`);
  const stranger = generateKeyPairSync('ed25519').privateKey;
  const forged = await call(phoneService, 'PhoneLogin', {
    challenge_id: challenge.challenge_id,
    signature: phone.sign(challenge.challenge, stranger),
  });
  expect(failure(forged)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
  const login = await ok(phoneService, 'PhoneLogin', {
    challenge_id: challenge.challenge_id,
    signature: phone.sign(challenge.challenge),
  });
  expect(login.response).toMatchObject({
    message: 'Signed in',
    mfa_required: false,
    user: { address: registered.response.user.address },
  });
  await ok(sessions, 'ListSessions', {}, bearer(login.response.access_token));
  expect(
    failure(
      await call(phoneService, 'PhoneLogin', {
        challenge_id: challenge.challenge_id,
        signature: phone.sign(challenge.challenge),
      }),
    ),
  ).toMatchObject({
    code: 'FAILED_PRECONDITION',
    reason: 'GONE',
  });
});

it('reports the lockout status of a number, and refuses a malformed one', async () => {
  const phone = new TestPhone();
  expect(
    (await ok(phoneService, 'GetPhoneLockoutStatus', { phone: phone.hash })).response,
  ).toMatchObject({ failed_attempts: 0, max_attempts: 5, locked: false });
  expect(
    failure(await call(phoneService, 'GetPhoneLockoutStatus', { phone: 'nope' })),
  ).toMatchObject({ code: 'INVALID_ARGUMENT' });
});
