/**
 * PhoneAuthService.CreatePhoneLoginChallenge and PhoneLogin: a verified number gets a
 * challenge; its signature by the account's identity key signs in, ending like Initialize
 * (a session, or an MFA-pending sign-in when the account has MFA on).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  CreatePhoneLoginChallengeRequest,
  PhoneLoginRequest,
} from '../gen/service/v1/phone_pb.js';
import { invalidArgument, notFound, unauthenticated } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import {
  recordFailures,
  recordSuccesses,
  refuseWhileLocked,
} from '../identity/lockout/lockout-report.js';
import type { Lockouts } from '../identity/lockout/lockouts.js';
import { authUserOf } from '../identity/signin/auth-user.js';
import { dpopKeyOf } from '../identity/signin/dpop-binding.js';
import { signInMembers } from '../identity/signin/mfa-gate.js';
import type { MfaGate } from '../identity/signin/mfa-gate.js';
import { SIGN_IN_LIMITS } from '../identity/signin/sign-in-limits.js';
import type { DpopValidator } from '../identity/tokens/dpop.js';
import { requireBase64, verifiesWithIdentityKey } from './identity-key.js';
import { LOGIN_CHALLENGE_TTL_SECONDS } from './login-challenges.js';
import type { LoginChallenges } from './login-challenges.js';
import type { PhoneAccounts } from './phone-accounts.js';
import { phoneLockouts } from './phone-lockouts.js';
import type { VerificationTokens } from './verification-tokens.js';

const MAX_DEVICE_NAME = SIGN_IN_LIMITS.deviceName;

export interface PhoneLoginChallengeDependencies {
  readonly verifications: VerificationTokens;
  readonly phoneAccounts: PhoneAccounts;
  readonly challenges: LoginChallenges;
  readonly lockouts: Lockouts;
}

export function createPhoneLoginChallenge(deps: PhoneLoginChallengeDependencies) {
  const { verifications, phoneAccounts } = deps;
  return async (request: CreatePhoneLoginChallengeRequest, context: HandlerContext) => {
    const verification = await verifications.check(request.verificationToken);
    const { phoneHash } = verification.payload;
    await refuseWhileLocked(
      deps.lockouts,
      await phoneLockouts(phoneAccounts, phoneHash, callInfoOf(context).clientIp),
    );
    const bound = await phoneAccounts.findByHash(phoneHash);
    if (!bound) throw notFound('No account is bound to this number: register instead');
    await verifications.consume(verification);
    const challenge = await deps.challenges.create(bound._id, phoneHash);
    return {
      success: true,
      message: 'Sign the challenge with the identity key',
      challengeId: challenge.id,
      challenge: challenge.text,
      expiresIn: LOGIN_CHALLENGE_TTL_SECONDS,
      expiresAt: challenge.expiresAt.toISOString(),
      walletAddress: bound._id,
    };
  };
}

export interface PhoneLoginDependencies {
  readonly challenges: LoginChallenges;
  readonly phoneAccounts: PhoneAccounts;
  readonly accounts: AccountRepository;
  readonly lockouts: Lockouts;
  readonly dpop: DpopValidator;
  readonly mfaGate: MfaGate;
  readonly audit: AuditLog;
}

export function phoneLogin(deps: PhoneLoginDependencies) {
  const { challenges, lockouts, audit } = deps;
  return async (request: PhoneLoginRequest, context: HandlerContext) => {
    const call = callInfoOf(context);
    if (request.deviceName.length > MAX_DEVICE_NAME)
      throw invalidArgument(`device_name has at most ${MAX_DEVICE_NAME} characters`);
    const signature = requireBase64(request.signature, 64, 'signature');
    const challenge = await challenges.check(request.challengeId);
    const { address, phoneHash, text } = challenge.payload;
    const targets = await phoneLockouts(deps.phoneAccounts, phoneHash, call.clientIp);
    await refuseWhileLocked(lockouts, targets);
    const [bound, account] = await Promise.all([
      deps.phoneAccounts.findByAddress(address),
      deps.accounts.find(address),
    ]);
    // Revoked or migrated since the challenge was made: the challenge is no longer about this account.
    if (!bound || !account || bound.phoneHash !== phoneHash)
      throw notFound('No account is bound to this number any more');
    if (!verifiesWithIdentityKey(Buffer.from(bound.identityPublicKey, 'base64'), text, signature)) {
      await audit.record(call, 'sign_in_failed', { address, detail: 'phone_signature' });
      await recordFailures(lockouts, targets);
      throw unauthenticated('The signature does not verify with the identity key');
    }
    const dpopJkt = await dpopKeyOf(deps.dpop, context);
    await challenges.consume(challenge);
    const outcome = await deps.mfaGate.pass(context, {
      account,
      authMethod: 'phone',
      deviceName: request.deviceName,
      trustedDeviceToken: request.trustedDeviceToken,
      dpopJkt,
    });
    // With MFA pending only the client's failures are forgotten (see Initialize).
    await recordSuccesses(
      lockouts,
      outcome.mfaRequired ? targets.filter(([kind]) => kind === 'ip') : targets,
    );
    if (!outcome.mfaRequired)
      await audit.record(call, 'sign_in', {
        address,
        sessionId: outcome.session.sessionId,
        detail: 'phone',
      });
    return { success: true, ...signInMembers(outcome), user: authUserOf(account) };
  };
}
