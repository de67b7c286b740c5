/** PhoneAuthService.VerifySmsCode: the code for a verification token, or a counted failure. */
import type { HandlerContext } from '@connectrpc/connect';
import type { VerifySmsCodeRequest } from '../gen/service/v1/phone_pb.js';
import { invalidArgument, unauthenticated } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import {
  recordFailures,
  recordSuccesses,
  refuseWhileLocked,
} from '../identity/lockout/lockout-report.js';
import type { Lockouts } from '../identity/lockout/lockouts.js';
import type { PhoneAccounts } from './phone-accounts.js';
import { requirePhoneHash } from './phone-hash.js';
import { phoneLockouts } from './phone-lockouts.js';
import type { SmsCodes } from './sms-codes.js';
import { VERIFICATION_TOKEN_TTL_SECONDS } from './verification-tokens.js';
import type { VerificationTokens } from './verification-tokens.js';

export interface VerifySmsCodeDependencies {
  readonly phoneAccounts: PhoneAccounts;
  readonly codes: SmsCodes;
  readonly verifications: VerificationTokens;
  readonly lockouts: Lockouts;
}

export function verifySmsCode(deps: VerifySmsCodeDependencies) {
  const { phoneAccounts, lockouts } = deps;
  return async (request: VerifySmsCodeRequest, context: HandlerContext) => {
    const hash = requirePhoneHash(request.phoneHash, 'phone_hash');
    if (!/^\d{6}$/.test(request.code)) throw invalidArgument('code must be 6 digits');
    const targets = await phoneLockouts(phoneAccounts, hash, callInfoOf(context).clientIp);
    await refuseWhileLocked(lockouts, targets);
    if (!(await deps.codes.consume(hash, request.code))) {
      await recordFailures(lockouts, targets);
      throw unauthenticated('The code is not valid', 'INVALID_CODE');
    }
    await recordSuccesses(lockouts, targets);
    const { token, expiresAt } = await deps.verifications.issue(hash);
    return {
      success: true,
      message: 'Number verified',
      verificationToken: token,
      expiresIn: VERIFICATION_TOKEN_TTL_SECONDS,
      expiresAt: expiresAt.toISOString(),
      registered: (await phoneAccounts.findByHash(hash)) !== null,
    };
  };
}
