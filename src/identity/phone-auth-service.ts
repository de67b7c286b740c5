/** PhoneAuthService: phone-number accounts (phone.proto). Each RPC's handler lives in its own module. */
import type { HandlerContext } from '@connectrpc/connect';
import type { GetPhoneLockoutStatusRequest } from '../gen/service/v1/phone_pb.js';
import type { Identity } from './identity-area.js';
import { lockoutReport } from './lockout/lockout-report.js';
import { migratePhoneHash } from './phone/migrate-phone-hash.js';
import { createPhoneAuth, numberLockout } from './phone/phone-auth.js';
import { requirePhoneHash } from './phone/phone-hash.js';
import { createPhoneLoginChallenge, phoneLogin } from './phone/phone-login.js';
import { registerPhone } from './phone/register-phone.js';
import { revokeAbandonedPhoneRegistration } from './phone/revoke-abandoned-registration.js';
import { sendSmsCode } from './phone/send-sms-code.js';
import { verifySmsCode } from './phone/verify-sms-code.js';

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
