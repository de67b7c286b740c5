/**
 * PhoneAuthService.RevokeAbandonedPhoneRegistration. Who may call it: whoever holds a fresh
 * verification token for the number (VerifySmsCode), i.e. whoever receives its SMS now, the
 * same proof that registered it. No Bearer token is asked for, because the typical caller has
 * lost the partial account's keys and cannot sign in. It reaches partial registrations only
 * (no key bundle published yet: nothing else depends on the account); a complete account is
 * deleted by its owner.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { RevokeAbandonedPhoneRegistrationRequest } from '../../gen/service/v1/phone_pb.js';
import { conflict, notFound } from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import type { PhoneAuth } from './phone-auth.js';

export function revokeAbandonedPhoneRegistration(phone: PhoneAuth) {
  const { identity } = phone;
  return async (request: RevokeAbandonedPhoneRegistrationRequest, context: HandlerContext) => {
    const verification = await phone.verifications.check(request.verificationToken);
    const bound = await phone.phoneAccounts.findByHash(verification.payload.phoneHash);
    if (!bound) throw notFound('No registration is bound to this number');
    if (bound.completedAt !== null) throw conflict('The registration is complete: only its owner can delete the account');
    await phone.verifications.consume(verification);
    const address = bound._id;
    await identity.sessions.endAll(address, 'registration_revoked');
    await identity.refreshTokens.deleteMany({ address });
    await identity.mfa.disable(address);
    await identity.accounts.delete(address);
    await phone.phoneAccounts.remove(address);
    await identity.audit.record(callInfoOf(context), 'session_ended', { address, detail: 'phone_registration_revoked' });
    return { success: true, message: 'The partial registration was revoked', walletAddress: address };
  };
}
