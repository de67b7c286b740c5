/**
 * The profile area's records of an account, for social recovery and account deletion.
 *
 * Move: the profile record (bio, avatar) is copied to the new address, replacing any record
 * the new address had (the account moving is the one whose profile counts), then removed from
 * the old one; the old account's held usernames are held for the new address. The username
 * and display name themselves are fields of the account record, which identity moves.
 * Delete: the profile record is removed. The username is identity's to hold (it holds it in
 * the deletion's first step, before anything else, for exactly 30 days from then).
 * Both steps are idempotent: a rerun after a crash finds either nothing left to do or the same
 * work again.
 */
import type { Usernames } from '../accounts/usernames.js';
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { Profiles } from './profiles.js';

export function profileAccountData(profiles: Profiles, usernames: Usernames): AccountDataOwner {
  return {
    name: 'profile',
    async moveAccount(from: string, to: string) {
      const record = await profiles.records.findOne({ _id: from });
      if (record) {
        const { _id, ...fields } = record;
        await profiles.records.updateOne({ _id: to }, { $set: fields }, { upsert: true });
        await profiles.records.deleteOne({ _id: from });
      }
      await usernames.holds.moveHolds(from, to);
    },
    async deleteAccount(address: string) {
      await profiles.records.deleteOne({ _id: address });
    },
  };
}
