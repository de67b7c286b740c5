/**
 * Group membership as durable facts: each member is a `conversation_members` record of the
 * group's conversation (role, joining time, first readable message), and every change is also a
 * system message in the conversation, so members' devices hear of it over `/ws` in order with
 * the messages, and a device that was away reads it in the history.
 *
 * Departure is immediate: the member's record goes before the system message is numbered, so
 * nothing numbered after the departure has the departed member in its audience (message
 * audience is read from the member records), and its reads and sends answer 404. Also across
 * api pods: a send on another pod that read its audience before the departure and tries the
 * departure's number meets it at the unique sequence index, and its retry reads the audience
 * again with its new number (MessageSender.store). The departed
 * member is still told: message-audience.ts adds the `member_address` of `member_left` and
 * `member_removed` to their audience.
 *
 * Ownership: exactly one owner. When the owner departs, the longest-standing admin becomes owner,
 * else the longest-standing member; the last member's departure ends the group. Each step of a
 * departure can be repeated after a crash (account deletion resumes it): a successor already
 * promoted is found again before anyone else is picked.
 */
import { conflict, notFound } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { memberId } from '../messaging/conversations/conversation.js';
import type { ConversationMember } from '../messaging/conversations/conversation.js';
import type { Conversations, Target } from '../messaging/conversations/conversations.js';

/** What a group's conversation record holds for the group's view. */
export interface GroupSettings {
  readonly disappearingTimerSeconds: number;
  readonly membersCanPin: boolean;
}
import type { MessageSender } from '../messaging/messages/message-sender.js';
import type { MediaAttachments } from '../messaging/messages/media-attachments.js';
import { MESSAGES } from '../messaging/messages/stored-message.js';
import type { StoredMessage } from '../messaging/messages/stored-message.js';
import { GROUPS, conversationIdOf } from './group.js';
import type { GroupRecord } from './group.js';
import type { GroupAvatars } from './group-avatars.js';
import type { GroupRole } from './group-roles.js';
import { GroupRemovals } from './group-removals.js';
import { GROUP_INVITES } from './group-invite.js';

/** A member record of a group (role and joining time are always set for groups). */
export type GroupMember = ConversationMember & { role: GroupRole; joinedAt: Date };

export type Departure = 'member_left' | 'member_removed';

export interface DepartureOutcome {
  /** The new owner when the departed member owned the group; empty otherwise. */
  readonly newOwner: string;
  readonly groupDeleted: boolean;
  readonly memberCount: number;
}

export const groupTarget = (groupId: string): Target => ({
  conversationId: conversationIdOf(groupId),
  type: 'group',
  peer: '',
  groupId,
  channelId: '',
});

const ROLE_ORDER: Record<GroupRole, number> = { owner: 0, admin: 1, member: 2 };

export class Memberships {
  readonly groups: Collection<GroupRecord>;
  readonly removals: GroupRemovals;

  constructor(
    private readonly store: DocumentStore,
    private readonly conversations: Conversations,
    private readonly sender: MessageSender,
    private readonly avatars: GroupAvatars,
    private readonly messageMedia: MediaAttachments,
    private readonly maxMembers: number,
  ) {
    this.groups = store.collection<GroupRecord>(GROUPS);
    this.removals = new GroupRemovals(store);
  }

  /** The group as `address` may see it: 404 unless `address` is a member. */
  async requireMember(
    groupId: string,
    address: string,
  ): Promise<{ group: GroupRecord; member: GroupMember }> {
    const member = groupId.length > 64 ? null : await this.member(groupId, address);
    const group = member ? await this.groups.findOne({ _id: groupId }) : null;
    if (!member || !group) throw notFound('No such group');
    return { group, member };
  }

  async member(groupId: string, address: string): Promise<GroupMember | null> {
    return (await this.conversations.member(
      conversationIdOf(groupId),
      address,
    )) as GroupMember | null;
  }

  /** The settings of these groups kept on their conversations (timer, pins), by group id. */
  async timersOf(groupIds: readonly string[]): Promise<Map<string, GroupSettings>> {
    const found = await this.conversations.conversations.find({
      _id: { $in: groupIds.map(conversationIdOf) },
    });
    return new Map(
      found.map((conversation) => [
        conversation._id.slice('group:'.length),
        {
          disappearingTimerSeconds: conversation.disappearingTimerSeconds,
          membersCanPin: conversation.membersCanPin ?? false,
        },
      ]),
    );
  }

  /**
   * UpdateGroupSettings: `members_can_pin`, kept on the group's conversation record, where
   * messaging's pin rule reads it (relation-rules.ts).
   */
  async setMembersCanPin(groupId: string, allowed: boolean): Promise<void> {
    await this.conversations.setMembersCanPin(conversationIdOf(groupId), allowed);
  }

  /** Every member: the owner first, then admins, then members, each by joining time. */
  async list(groupId: string): Promise<GroupMember[]> {
    const members = (await this.conversations.members.find({
      conversationId: conversationIdOf(groupId),
    })) as GroupMember[];
    return members.sort(
      (a, b) =>
        ROLE_ORDER[a.role] - ROLE_ORDER[b.role] ||
        a.joinedAt.getTime() - b.joinedAt.getTime() ||
        a.address.localeCompare(b.address),
    );
  }

  /**
   * Adds `address` as a plain member (an invite's use): false when it already was one. The
   * member count is raised first, conditionally, so the limit holds under concurrent joins.
   */
  async join(groupId: string, address: string): Promise<boolean> {
    if (await this.member(groupId, address)) return false;
    const counted = await this.groups.updateOne(
      { _id: groupId, memberCount: { $lt: this.maxMembers } },
      { $inc: { memberCount: 1 } },
    );
    if (counted.matchedCount === 0) {
      if (!(await this.groups.findOne({ _id: groupId }))) throw notFound('No such group');
      throw conflict(`The group already has ${this.maxMembers} members`);
    }
    const target = groupTarget(groupId);
    const historyFrom =
      ((await this.conversations.find(target.conversationId))?.lastSequence ?? 0) + 1;
    try {
      await this.conversations.members.insertOne(
        newMember(groupId, address, 'member', new Date(), historyFrom),
      );
    } catch (error) {
      await this.groups.updateOne({ _id: groupId }, { $inc: { memberCount: -1 } });
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
    await this.sender.appendSystem(target, 'member_joined', {
      actor_address: address,
      member_address: address,
    });
    return true;
  }

  /** Sets a member's role (never the owner's); answers the member, and whether it changed. */
  async setRole(
    groupId: string,
    actor: string,
    member: GroupMember,
    role: 'admin' | 'member',
  ): Promise<GroupMember> {
    if (member.role === role) return member;
    const changed = await this.conversations.members.findOneAndUpdate(
      { _id: member._id, role: member.role },
      { $set: { role } },
      { returnDocument: 'after' },
    );
    if (!changed) throw notFound('No such member');
    await this.sender.appendSystem(
      groupTarget(groupId),
      role === 'admin' ? 'member_promoted' : 'member_demoted',
      { actor_address: actor, member_address: member.address },
    );
    return changed as GroupMember;
  }

  async rename(groupId: string, actor: string, name: string): Promise<GroupRecord> {
    const renamed = await this.groups.findOneAndUpdate(
      { _id: groupId },
      { $set: { name } },
      { returnDocument: 'after' },
    );
    if (!renamed) throw notFound('No such group');
    await this.conversations.conversations.updateOne(
      { _id: conversationIdOf(groupId) },
      { $set: { title: name } },
    );
    await this.sender.appendSystem(groupTarget(groupId), 'group_renamed', {
      actor_address: actor,
      name,
    });
    return renamed;
  }

  /**
   * `address` leaves (`member_left`, actor itself) or is removed (`member_removed`, by `actor`).
   * Repeating it after a crash finishes what the first run left.
   */
  async depart(
    groupId: string,
    address: string,
    departure: Departure,
    actor: string,
  ): Promise<DepartureOutcome> {
    const target = groupTarget(groupId);
    const group = await this.groups.findOne({ _id: groupId });
    if (!group) return { newOwner: '', groupDeleted: true, memberCount: 0 };
    const newOwner = group.ownerAddress === address ? await this.passOwnership(group, address) : '';
    if (departure === 'member_removed') await this.removals.record(groupId, address);
    const { deletedCount } = await this.conversations.members.deleteOne({
      _id: memberId(target.conversationId, address),
    });
    const counted =
      deletedCount > 0
        ? await this.groups.findOneAndUpdate(
            { _id: groupId },
            { $inc: { memberCount: -1 } },
            { returnDocument: 'after' },
          )
        : group;
    const memberCount = counted?.memberCount ?? 0;
    if (newOwner === '' && group.ownerAddress === address) {
      await this.end(group);
      return { newOwner: '', groupDeleted: true, memberCount: 0 };
    }
    if (deletedCount > 0)
      await this.sender.appendSystem(target, departure, {
        actor_address: actor,
        member_address: address,
      });
    if (newOwner !== '')
      await this.sender.appendSystem(target, 'ownership_transferred', {
        actor_address: address,
        member_address: newOwner,
      });
    return { newOwner, groupDeleted: false, memberCount };
  }

  /**
   * Makes the successor of the departing owner the owner (see the file comment); answers it,
   * or '' when nobody else is left.
   */
  private async passOwnership(group: GroupRecord, departing: string): Promise<string> {
    const conversationId = conversationIdOf(group._id);
    const others = { conversationId, address: { $ne: departing } };
    const [successor] = (
      await this.conversations.members.find({ ...others, role: 'owner' }, { limit: 1 })
    ).concat(
      await this.conversations.members.find(
        { ...others, role: 'admin' },
        { sort: { joinedAt: 1, _id: 1 }, limit: 1 },
      ),
      await this.conversations.members.find(
        { ...others, role: 'member' },
        { sort: { joinedAt: 1, _id: 1 }, limit: 1 },
      ),
    );
    if (!successor) return '';
    await this.conversations.members.updateOne({ _id: successor._id }, { $set: { role: 'owner' } });
    await this.groups.updateOne({ _id: group._id }, { $set: { ownerAddress: successor.address } });
    return successor.address;
  }

  /**
   * The last member left: the group, its conversation, messages, invites and removals go, and
   * the media its avatar and messages held is released (the sweeper deletes it). Releasing comes
   * first and repeats harmlessly, so a crash in between leaves nothing held for ever.
   */
  private async end(group: GroupRecord): Promise<void> {
    const groupId = group._id;
    const conversationId = conversationIdOf(groupId);
    if (group.avatarMediaId !== '')
      await this.avatars.releaseAvatar(group.avatarMediaId, { kind: 'group', id: groupId });
    // The messages are messaging's records, but they die with the group: nobody can read them.
    const messages = this.store.collection<StoredMessage>(MESSAGES);
    const now = new Date();
    for (const message of await messages.find(
      { conversationId, mediaId: { $ne: '' } },
      { projection: { _id: 1, mediaId: 1 } },
    )) {
      await this.messageMedia.endReference(message.mediaId, message._id, now);
    }
    await messages.deleteMany({ conversationId });
    await this.store.collection(GROUP_INVITES).deleteMany({ groupId });
    await this.removals.forgetGroup(groupId);
    await this.conversations.members.deleteMany({ conversationId });
    await this.conversations.conversations.deleteOne({ _id: conversationId });
    await this.groups.deleteOne({ _id: groupId });
  }
}

export function newMember(
  groupId: string,
  address: string,
  role: GroupRole,
  joinedAt: Date,
  historyFrom: number,
): GroupMember {
  const conversationId = conversationIdOf(groupId);
  return {
    _id: memberId(conversationId, address),
    conversationId,
    address,
    type: 'group',
    peerAddress: '',
    groupId,
    channelId: '',
    role,
    joinedAt,
    historyFrom,
    lastReadSequence: historyFrom > 0 ? historyFrom - 1 : 0,
    lastReadMessageId: '',
    activityAt: joinedAt,
  };
}
