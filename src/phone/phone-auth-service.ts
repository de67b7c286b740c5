/** PhoneAuthService: phone-number accounts (phone.proto). Each RPC's handler lives in its own module under phone/. */
import type { HandlerContext } from '@connectrpc/connect';
import type { GetPhoneLockoutStatusRequest } from '../gen/service/v1/phone_pb.js';
import { lockoutReport } from '../identity/lockout/lockout-report.js';
import { migratePhoneHash } from './migrate-phone-hash.js';
import type { MigratePhoneHashDependencies } from './migrate-phone-hash.js';
import { requirePhoneHash } from './phone-hash.js';
import { numberLockout } from './phone-lockouts.js';
import { createPhoneLoginChallenge, phoneLogin } from './phone-login.js';
import type { PhoneLoginChallengeDependencies, PhoneLoginDependencies } from './phone-login.js';
import { registerPhone } from './register-phone.js';
import type { RegisterPhoneDependencies } from './register-phone.js';
import { revokeAbandonedPhoneRegistration } from './revoke-abandoned-registration.js';
import type { RevokeAbandonedRegistrationDependencies } from './revoke-abandoned-registration.js';
import { sendSmsCode } from './send-sms-code.js';
import type { SendSmsCodeDependencies } from './send-sms-code.js';
import { verifySmsCode } from './verify-sms-code.js';
import type { VerifySmsCodeDependencies } from './verify-sms-code.js';

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
