/** PhoneAuthService: phone-number accounts (phone.proto). Each RPC's handler lives in its own module under phone/. */
import type { HandlerContext } from '@connectrpc/connect';
import type { GetPhoneLockoutStatusRequest } from '../gen/service/v1/phone_pb.js';
import { lockoutReport } from './lockout/lockout-report.js';
import { migratePhoneHash } from './phone/migrate-phone-hash.js';
import type { MigratePhoneHashDependencies } from './phone/migrate-phone-hash.js';
import { requirePhoneHash } from './phone/phone-hash.js';
import { numberLockout } from './phone/phone-lockouts.js';
import { createPhoneLoginChallenge, phoneLogin } from './phone/phone-login.js';
import type { PhoneLoginChallengeDependencies, PhoneLoginDependencies } from './phone/phone-login.js';
import { registerPhone } from './phone/register-phone.js';
import type { RegisterPhoneDependencies } from './phone/register-phone.js';
import { revokeAbandonedPhoneRegistration } from './phone/revoke-abandoned-registration.js';
import type { RevokeAbandonedRegistrationDependencies } from './phone/revoke-abandoned-registration.js';
import { sendSmsCode } from './phone/send-sms-code.js';
import type { SendSmsCodeDependencies } from './phone/send-sms-code.js';
import { verifySmsCode } from './phone/verify-sms-code.js';
import type { VerifySmsCodeDependencies } from './phone/verify-sms-code.js';

export type PhoneAuthServiceDependencies = SendSmsCodeDependencies &
  VerifySmsCodeDependencies &
  RegisterPhoneDependencies &
  PhoneLoginChallengeDependencies &
  PhoneLoginDependencies &
  MigratePhoneHashDependencies &
  RevokeAbandonedRegistrationDependencies;

export function createPhoneAuthService(deps: PhoneAuthServiceDependencies) {
  return {
    sendSmsCode: sendSmsCode(deps),
    verifySmsCode: verifySmsCode(deps),
    registerPhone: registerPhone(deps),
    createPhoneLoginChallenge: createPhoneLoginChallenge(deps),
    phoneLogin: phoneLogin(deps),
    migratePhoneHash: migratePhoneHash(deps),
    revokeAbandonedPhoneRegistration: revokeAbandonedPhoneRegistration(deps),

    async getPhoneLockoutStatus(request: GetPhoneLockoutStatusRequest, _context: HandlerContext) {
      const hash = requirePhoneHash(request.phone, 'phone');
      return lockoutReport(deps.lockouts, await numberLockout(deps.phoneAccounts, hash));
    },
  };
}
