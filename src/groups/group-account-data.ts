/**
 * The groups area's records keyed by a wallet address, for social recovery and account
 * deletion (AccountDataOwner).
 *
 * Move: every group membership of `from` becomes `to`'s, with its role, joining time, first
 * readable message and read marker; where `to` is already a member of the same group the two
 * records merge into one (the higher role, the earlier joining, the wider history, the further
 * read marker) and the member count drops by one. Group ownership, the removal records and the
 * invites `from` created move too.
 *
 * Delete: `address` leaves every group it belongs to by the rule of leaving (an owner's
 * ownership passes to the longest-standing admin, else member; the last member ends the
 * group), and its removal records go. Invites it created stay with their groups.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import { memberId } from '../messaging/conversations/conversation.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { GroupInvites } from './group-invites.js';
import type { GroupRole } from './group-roles.js';
import type { GroupMember, Memberships } from './memberships.js';

const RANK: Record<GroupRole, number> = { owner: 3, admin: 2, member: 1 };

export function groupAccountData(
  conversations: Conversations,
  memberships: Memberships,
  invites: GroupInvites,
): AccountDataOwner {
  const membershipsOf = async (address: string) =>
    (await conversations.members.find({ address, type: 'group' })) as GroupMember[];
  return {
    name: 'groups',

    async moveAccount(from, to) {
      for (const old of await membershipsOf(from)) {
        const merged = await memberships.member(old.groupId, to);
        const moved: GroupMember = merged
          ? {
              ...merged,
              role: RANK[old.role] > RANK[merged.role] ? old.role : merged.role,
              joinedAt: old.joinedAt < merged.joinedAt ? old.joinedAt : merged.joinedAt,
              historyFrom: Math.min(old.historyFrom ?? 0, merged.historyFrom ?? 0),
              lastReadSequence: Math.max(old.lastReadSequence, merged.lastReadSequence),
            }
          : { ...old, _id: memberId(old.conversationId, to), address: to };
        const { _id, ...fields } = moved;
        await conversations.members.updateOne({ _id }, { $set: fields }, { upsert: true });
        const { deletedCount } = await conversations.members.deleteOne({ _id: old._id });
        if (merged && deletedCount > 0)
          await memberships.groups.updateOne({ _id: old.groupId }, { $inc: { memberCount: -1 } });
      }
      await memberships.groups.updateMany({ ownerAddress: from }, { $set: { ownerAddress: to } });
      await memberships.removals.move(from, to);
      await invites.invites.updateMany({ createdBy: from }, { $set: { createdBy: to } });
    },

    async deleteAccount(address) {
      for (const membership of await membershipsOf(address)) {
        await memberships.depart(membership.groupId, address, 'member_left', address);
      }
      await memberships.removals.forgetAddress(address);
    },
  };
}
