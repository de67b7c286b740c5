/** The phone flow over REST, step by step, for the phone e2e tests. */
import { Api, expectOk } from '../support/session-api.js';
import { TestUser, shortRegistrationMessage } from '../support/wallet.js';
import { uniqueNow } from '../support/signin-http.js';
import type { TestPhone } from './phone-support.js';
import { lastSmsCode } from './phone-support.js';

export class PhoneFlow {
  constructor(
    readonly api: Api,
    readonly dataDir: string,
  ) {}

  sendSms(phone: TestPhone, extra: Record<string, unknown> = {}) {
    return this.api.post('/api/v1/auth/phone/send-sms', {
      phone_number: phone.number,
      phone_hash: phone.hash,
      ...extra,
    });
  }

  verifyCode(phone: TestPhone, code: string) {
    return this.api.post('/api/v1/auth/phone/verify-code', { phone_hash: phone.hash, code });
  }

  /** SMS, code from the outbox, verification: the verification token. */
  async verify(phone: TestPhone): Promise<{ verification_token: string; registered: boolean }> {
    expectOk(await this.sendSms(phone));
    return expectOk(await this.verifyCode(phone, lastSmsCode(this.dataDir, phone.number)));
  }

  /** A RegisterPhone body for a new wallet, with the phone hash signed by the identity key. */
  async registrationBody(
    phone: TestPhone,
    verificationToken: string,
    user = new TestUser(),
    extra: Record<string, unknown> = {},
  ) {
    const message = shortRegistrationMessage({
      address: user.address,
      username: user.username,
      timestampMs: uniqueNow(),
    });
    return {
      verification_token: verificationToken,
      wallet_address: user.address,
      username: user.username,
      message,
      signature: await user.sign(message),
      identity_public_key: phone.publicKey,
      phone_hash_signature: phone.sign(phone.hash),
      ...extra,
    };
  }

  async register(phone: TestPhone, user = new TestUser()) {
    const { verification_token } = await this.verify(phone);
    return {
      user,
      body: expectOk(
        await this.api.post(
          '/api/v1/auth/phone/register',
          await this.registrationBody(phone, verification_token, user),
        ),
      ),
    };
  }

  /** A login challenge for the (registered) phone. */
  async challenge(
    phone: TestPhone,
  ): Promise<{ challenge_id: string; challenge: string; wallet_address: string }> {
    const { verification_token } = await this.verify(phone);
    return expectOk(
      await this.api.post('/api/v1/auth/phone/login-challenge', { verification_token }),
    );
  }

  login(challengeId: string, signature: string, extra: Record<string, unknown> = {}) {
    return this.api.post('/api/v1/auth/phone/login', {
      challenge_id: challengeId,
      signature,
      ...extra,
    });
  }
}
