/**
 * PhoneAuthService.CreatePhoneLoginChallenge and PhoneLogin: a verified number gets a
 * challenge; its signature by the account's identity key signs in, ending like Initialize
 * (a session, or an MFA-pending sign-in when the account has MFA on).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { CreatePhoneLoginChallengeRequest, PhoneLoginRequest } from '../../gen/service/v1/phone_pb.js';
import { invalidArgument, notFound, unauthenticated } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import { recordFailures, recordSuccesses, refuseWhileLocked } from '../lockout/lockout-report.js';
import { authUserOf, signInMembers, signInOrRequireMfa } from '../signin/mfa-gate.js';
import { dpopKeyOf } from '../signin/dpop-binding.js';
import { SIGN_IN_LIMITS } from '../signin/initialize.js';
import { requireBase64, verifiesWithIdentityKey } from './identity-key.js';
import type { PhoneAuth } from './phone-auth.js';
import { phoneLockouts } from './phone-auth.js';
import { LOGIN_CHALLENGE_TTL_SECONDS } from './login-challenges.js';

const MAX_DEVICE_NAME = SIGN_IN_LIMITS.deviceName;

export function createPhoneLoginChallenge(phone: PhoneAuth) {
  const { identity } = phone;
  return async (request: CreatePhoneLoginChallengeRequest, context: HandlerContext) => {
    const verification = await phone.verifications.check(request.verificationToken);
    const { phoneHash } = verification.payload;
    await refuseWhileLocked(identity.lockouts, await phoneLockouts(phone, phoneHash, callInfoOf(context).clientIp));
    const bound = await phone.phoneAccounts.findByHash(phoneHash);
    if (!bound) throw notFound('No account is bound to this number: register instead');
    await phone.verifications.consume(verification);
    const challenge = await phone.challenges.create(bound._id, phoneHash);
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

export function phoneLogin(phone: PhoneAuth) {
  const { identity } = phone;
  return async (request: PhoneLoginRequest, context: HandlerContext) => {
    const call = callInfoOf(context);
    if (request.deviceName.length > MAX_DEVICE_NAME) throw invalidArgument(`device_name has at most ${MAX_DEVICE_NAME} characters`);
    const signature = requireBase64(request.signature, 64, 'signature');
    const challenge = await phone.challenges.check(request.challengeId);
    const { address, phoneHash, text } = challenge.payload;
    const lockouts = await phoneLockouts(phone, phoneHash, call.clientIp);
    await refuseWhileLocked(identity.lockouts, lockouts);
    const [bound, account] = await Promise.all([phone.phoneAccounts.findByAddress(address), identity.accounts.find(address)]);
    // Revoked or migrated since the challenge was made: the challenge is no longer about this account.
    if (!bound || !account || bound.phoneHash !== phoneHash) throw notFound('No account is bound to this number any more');
    if (!verifiesWithIdentityKey(Buffer.from(bound.identityPublicKey, 'base64'), text, signature)) {
      await identity.audit.record(call, 'sign_in_failed', { address, detail: 'phone_signature' });
      await recordFailures(identity.lockouts, lockouts);
      throw unauthenticated('The signature does not verify with the identity key');
    }
    const dpopJkt = await dpopKeyOf(identity.dpop, context);
    await phone.challenges.consume(challenge);
    const outcome = await signInOrRequireMfa(identity, context, {
      account,
      authMethod: 'phone',
      deviceName: request.deviceName,
      trustedDeviceToken: request.trustedDeviceToken,
      dpopJkt,
    });
    // With MFA pending only the client's failures are forgotten (see Initialize).
    await recordSuccesses(identity.lockouts, outcome.mfaRequired ? lockouts.filter(([kind]) => kind === 'ip') : lockouts);
    if (!outcome.mfaRequired) await identity.audit.record(call, 'sign_in', { address, sessionId: outcome.session.sessionId, detail: 'phone' });
    return { success: true, ...signInMembers(outcome), user: authUserOf(account) };
  };
}
