/**
 * The location area's records of an account, for social recovery and account deletion: both
 * end every active session the account shares or is shared with directly (its audience is told,
 * as for a stop), and neither moves anything, since a session holds no lasting data. Ended
 * records expire on their own an hour after their session's end time. Idempotent: a rerun
 * finds no active session left.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { LocationSharing } from './location-sharing.js';

export function locationAccountData(sharing: LocationSharing): AccountDataOwner {
  return {
    name: 'location',
    moveAccount: (from: string) => sharing.endAllOf(from),
    deleteAccount: (address: string) => sharing.endAllOf(address),
  };
}
