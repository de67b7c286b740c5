/**
 * PhoneAuthService.RevokeAbandonedPhoneRegistration. Who may call it: whoever holds a fresh
 * verification token for the number (VerifySmsCode), i.e. whoever receives its SMS now, the
 * same proof that registered it. No Bearer token is asked for, because the typical caller has
 * lost the partial account's keys and cannot sign in. It reaches partial registrations only
 * (no key bundle published yet: nothing else depends on the account); a complete account is
 * deleted by its owner.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { RevokeAbandonedPhoneRegistrationRequest } from '../gen/service/v1/phone_pb.js';
import { conflict, notFound } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import type { Mfa } from '../mfa/mfa.js';
import type { RefreshTokenRepository } from '../identity/sessions/refresh-token-repository.js';
import type { SessionManager } from '../identity/sessions/session-manager.js';
import type { PhoneAccounts } from './phone-accounts.js';
import type { VerificationTokens } from './verification-tokens.js';

export interface RevokeAbandonedRegistrationDependencies {
  readonly verifications: VerificationTokens;
  readonly phoneAccounts: PhoneAccounts;
  readonly sessions: SessionManager;
  readonly refreshTokens: RefreshTokenRepository;
  readonly mfa: Mfa;
  readonly accounts: AccountRepository;
  readonly audit: AuditLog;
}

export function revokeAbandonedPhoneRegistration(deps: RevokeAbandonedRegistrationDependencies) {
  const { verifications, phoneAccounts } = deps;
  return async (request: RevokeAbandonedPhoneRegistrationRequest, context: HandlerContext) => {
    const verification = await verifications.check(request.verificationToken);
    const bound = await phoneAccounts.findByHash(verification.payload.phoneHash);
    if (!bound) throw notFound('No registration is bound to this number');
    if (bound.completedAt !== null)
      throw conflict('The registration is complete: only its owner can delete the account');
    await verifications.consume(verification);
    const address = bound._id;
    await deps.sessions.endAll(address, 'registration_revoked');
    await deps.refreshTokens.removeAll(address);
    await deps.mfa.disable(address);
    await deps.accounts.delete(address);
    await phoneAccounts.remove(address);
    await deps.audit.record(callInfoOf(context), 'session_ended', {
      address,
      detail: 'phone_registration_revoked',
    });
    return {
      success: true,
      message: 'The partial registration was revoked',
      walletAddress: address,
    };
  };
}
