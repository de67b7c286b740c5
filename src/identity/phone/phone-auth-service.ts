/** PhoneAuthService: phone-number accounts (phone.proto). Each RPC's handler lives in its own module. */
import type { HandlerContext } from '@connectrpc/connect';
import type { GetPhoneLockoutStatusRequest } from '../../gen/service/v1/phone_pb.js';
import type { Identity } from '../identity.js';
import { lockoutReport } from '../lockout/lockout-report.js';
import { migratePhoneHash } from './migrate-phone-hash.js';
import { createPhoneAuth, numberLockout } from './phone-auth.js';
import { requirePhoneHash } from './phone-hash.js';
import { createPhoneLoginChallenge, phoneLogin } from './phone-login.js';
import { registerPhone } from './register-phone.js';
import { revokeAbandonedPhoneRegistration } from './revoke-abandoned-registration.js';
import { sendSmsCode } from './send-sms-code.js';
import { verifySmsCode } from './verify-sms-code.js';

export function createPhoneAuthService(identity: Identity) {
  const phone = createPhoneAuth(identity);
  return {
    sendSmsCode: sendSmsCode(phone),
    verifySmsCode: verifySmsCode(phone),
    registerPhone: registerPhone(phone),
    createPhoneLoginChallenge: createPhoneLoginChallenge(phone),
    phoneLogin: phoneLogin(phone),
    migratePhoneHash: migratePhoneHash(phone),
    revokeAbandonedPhoneRegistration: revokeAbandonedPhoneRegistration(phone),

    async getPhoneLockoutStatus(request: GetPhoneLockoutStatusRequest, _context: HandlerContext) {
      const hash = requirePhoneHash(request.phone, 'phone');
      return lockoutReport(identity.lockouts, await numberLockout(phone, hash));
    },
  };
}
