/**
 * PhoneAuthService.MigratePhoneHash: the caller's stored V1 hash (100,000 iterations) becomes
 * the V2 hash (310,000). Both are recomputed from the number, which is used only here.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { MigratePhoneHashRequest } from '../gen/service/v1/phone_pb.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import { requireCaller } from '../identity/auth/caller.js';
import { sameDigest } from '../platform/secrets/same-digest.js';
import type { PhoneAccounts } from './phone-accounts.js';
import { phoneHash, requirePhoneHash, requirePhoneNumber } from './phone-hash.js';

export interface MigratePhoneHashDependencies {
  /** PHONE_HASH_SALT. */
  readonly phoneHashSalt: string;
  readonly phoneAccounts: PhoneAccounts;
}

export function migratePhoneHash(deps: MigratePhoneHashDependencies) {
  const { phoneAccounts } = deps;
  return async (request: MigratePhoneHashRequest, context: HandlerContext) => {
    const caller = requireCaller(context);
    const number = requirePhoneNumber(request.phoneNumber, 'phone_number');
    const legacy = requirePhoneHash(request.legacyPhoneHash, 'legacy_phone_hash');
    const current = requirePhoneHash(request.phoneHash, 'phone_hash');
    const bound = await phoneAccounts.findByAddress(caller.address);
    if (!bound) throw invalidArgument('No phone number is bound to this account');
    const salt = deps.phoneHashSalt;
    const [v1, v2] = await Promise.all([phoneHash(number, salt, 1), phoneHash(number, salt, 2)]);
    if (!sameDigest(v1, legacy) || !sameDigest(v2, current))
      throw invalidArgument('The hashes do not match phone_number');
    const migrated = {
      success: true,
      message: 'Phone hash migrated to V2',
      migrated: true,
      hashVersion: 2,
    };
    if (bound.hashVersion === 2) {
      if (!sameDigest(bound.phoneHash, v2))
        throw invalidArgument('phone_number is not the number bound to this account');
      return { ...migrated, message: 'Already on V2', migrated: false };
    }
    if (!sameDigest(bound.phoneHash, v1))
      throw invalidArgument('phone_number is not the number bound to this account');
    // A concurrent migration of the same account may win; the outcome is the same.
    if (!(await phoneAccounts.migrate(caller.address, v1, v2)))
      return { ...migrated, message: 'Already on V2', migrated: false };
    return migrated;
  };
}
