/**
 * POST /api/v1/delete-account (ProfileService.DeleteAccount). The pipeline has already checked
 * the access token and the request's `X-Signature` (the RPC is signature-gated); here the
 * confirmation and the second factor, then the deletion walk (account-walker.ts), which ends
 * every session and removes or revokes what profile.proto lists. A walk interrupted by a crash
 * is finished at the next start; a retried request joins it.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import type {
  DeleteAccountRequest,
  DeleteAccountResponseSchema,
} from '../gen/service/v1/profile_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import type { AccountWalker } from './account-walker.js';

const MAX_REASON = 500;
const MAX_MFA_CODE = 32;

export interface DeleteAccountDependencies {
  readonly walker: AccountWalker;
  /** Identity's check of the second factor when MFA is on (403 when missing or wrong). */
  readonly confirmSecondFactor: (address: string, code: string) => Promise<void>;
}

export function deleteAccount(deps: DeleteAccountDependencies) {
  return async (
    request: DeleteAccountRequest,
    context: HandlerContext,
  ): Promise<MessageInitShape<typeof DeleteAccountResponseSchema>> => {
    const caller = requireCaller(context).address;
    if (request.confirm.toLowerCase() !== caller)
      throw invalidArgument('confirm must be your own wallet address');
    if ([...request.reason].length > MAX_REASON)
      throw invalidArgument(`reason has at most ${MAX_REASON} characters`);
    if (request.mfaCode.length > MAX_MFA_CODE) throw invalidArgument('mfa_code is malformed');
    await deps.confirmSecondFactor(caller, request.mfaCode);
    const walk = await deps.walker.walk('delete', caller, null);
    return { success: true, message: 'Account deleted', deletedAt: walk.startedAt.toISOString() };
  };
}
