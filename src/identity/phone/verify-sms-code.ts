/** PhoneAuthService.VerifySmsCode: the code for a verification token, or a counted failure. */
import type { HandlerContext } from '@connectrpc/connect';
import type { VerifySmsCodeRequest } from '../../gen/service/v1/phone_pb.js';
import { invalidArgument, unauthenticated } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import { recordFailures, recordSuccesses, refuseWhileLocked } from '../lockout/lockout-report.js';
import type { PhoneAuth } from './phone-auth.js';
import { phoneLockouts } from './phone-auth.js';
import { requirePhoneHash } from './phone-hash.js';
import { VERIFICATION_TOKEN_TTL_SECONDS } from './verification-tokens.js';

export function verifySmsCode(phone: PhoneAuth) {
  const { identity } = phone;
  return async (request: VerifySmsCodeRequest, context: HandlerContext) => {
    const hash = requirePhoneHash(request.phoneHash, 'phone_hash');
    if (!/^\d{6}$/.test(request.code)) throw invalidArgument('code must be 6 digits');
    const lockouts = await phoneLockouts(phone, hash, callInfoOf(context).clientIp);
    await refuseWhileLocked(identity.lockouts, lockouts);
    if (!(await phone.codes.consume(hash, request.code))) {
      await recordFailures(identity.lockouts, lockouts);
      throw unauthenticated('The code is not valid', 'INVALID_CODE');
    }
    await recordSuccesses(identity.lockouts, lockouts);
    const { token, expiresAt } = await phone.verifications.issue(hash);
    return {
      success: true,
      message: 'Number verified',
      verificationToken: token,
      expiresIn: VERIFICATION_TOKEN_TTL_SECONDS,
      expiresAt: expiresAt.toISOString(),
      registered: (await phone.phoneAccounts.findByHash(hash)) !== null,
    };
  };
}
