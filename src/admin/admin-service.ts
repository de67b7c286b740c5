/** AdminService: operator actions; access (the permission) is declared in admin.proto. */
import { isIP } from 'node:net';
import type { HandlerContext } from '@connectrpc/connect';
import type { UnlockLockoutRequest } from '../gen/service/v1/admin_pb.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import { requireCaller } from '../identity/auth/caller.js';
import type { LockoutKind, Lockouts } from '../identity/lockout/lockouts.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';

export interface AdminServiceDependencies {
  readonly lockouts: Lockouts;
  readonly audit: AuditLog;
}

export function createAdminService(deps: AdminServiceDependencies) {
  return {
    async unlockLockout(request: UnlockLockoutRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const type = (request.type || 'user') as LockoutKind;
      if (type !== 'user' && type !== 'ip') throw invalidArgument('type must be user or ip');
      if (type === 'user' && !isWalletAddress(request.identifier))
        throw invalidArgument('identifier must be a wallet address');
      if (type === 'ip' && isIP(request.identifier) === 0)
        throw invalidArgument('identifier must be an IP address');
      const identifier = request.identifier.toLowerCase();
      const unlocked = await deps.lockouts.clear(type, identifier);
      await deps.audit.record(callInfoOf(context), 'lockout_cleared', {
        address: caller.address,
        detail: `${type}:${identifier}:${unlocked ? 'unlocked' : 'not_locked'}`,
      });
      return {
        success: true,
        message: unlocked ? 'Lockout cleared' : 'Not locked',
        unlocked,
        identifier,
        type,
      };
    },
  };
}
