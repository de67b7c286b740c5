/**
 * The holder of an `mfa_token` (an MFA-pending sign-in, see mfa/pending-sign-ins.ts), as the
 * authentication middleware sees it: the token authenticates only the RPCs in
 * MFA_PENDING_METHODS, and its holder is put in the context under its own key, never as a
 * Caller, so no other RPC can mistake it for a session.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { createContextKey } from '@connectrpc/connect';
import { decodeProtectedHeader } from 'jose';
import { MfaService } from '../../gen/service/v1/mfa_pb.js';

/** The only RPCs an `mfa_token` authenticates (mfa.proto); every other one answers 401 to it. */
export const MFA_PENDING_METHODS: ReadonlySet<DescMethod> = new Set([
  MfaService.method.createMfaChallenge,
  MfaService.method.verifyMfa,
  MfaService.method.getMfaLockoutStatus,
]);

/** The caller of an RPC authenticated by an `mfa_token`. Deliberately not a Caller: requireCaller never returns it. */
export interface MfaPendingCaller {
  readonly address: string;
  readonly tokenId: string;
}

export const mfaPendingCallerKey = createContextKey<MfaPendingCaller | undefined>(undefined, {
  description: 'MFA-pending caller',
});

/** True when the Bearer token says it is an MFA-pending token (its `typ`); it is verified separately. */
export function looksLikeMfaToken(token: string): boolean {
  try {
    return decodeProtectedHeader(token).typ === 'mfa+jwt';
  } catch {
    return false;
  }
}
