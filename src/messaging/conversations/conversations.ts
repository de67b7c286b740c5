/**
 * Finding the conversation a request names, and the conversation records' bookkeeping:
 * the floor of sequence numbers, timers and each member's place in the chat list.
 */
import type { AccountRepository } from '../../accounts/account-repository.js';
import { requireExistingUser } from '../../accounts/existing-user.js';
import { invalidArgument, notFound } from '../../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import {
  CONVERSATIONS,
  CONVERSATION_MEMBERS,
  directConversationId,
  memberId,
} from './conversation.js';
import type { Conversation, ConversationMember, ConversationType } from './conversation.js';

/** A conversation as a request names it: the other user, a group or a channel. */
export interface TargetFields {
  readonly peerAddress: string;
  readonly groupId: string;
  readonly channelId?: string;
}

export interface Target {
  readonly conversationId: string;
  readonly type: ConversationType;
  /** The other user of a direct chat (lowercase); empty otherwise. */
  readonly peer: string;
  readonly groupId: string;
  readonly channelId: string;
  /** The first sequence number the caller may read (a group member's joining); 0 for all. */
  readonly historyFrom?: number;
}

export class Conversations {
  readonly conversations: Collection<Conversation>;
  readonly members: Collection<ConversationMember>;

  constructor(
    store: DocumentStore,
    private readonly accounts: AccountRepository,
  ) {
    this.conversations = store.collection<Conversation>(CONVERSATIONS);
    this.members = store.collection<ConversationMember>(CONVERSATION_MEMBERS);
  }

  /** A registered user named by a wallet address in any case: 400 if malformed, 404 if unknown. */
  existingUser(address: string, field: string): Promise<string> {
    return requireExistingUser(this.accounts, address, field);
  }

  /**
   * The one conversation that `fields` name, checked for the caller: a direct chat with an
   * existing user, or a group or channel the caller is a member of.
   */
  async resolve(
    caller: string,
    fields: TargetFields,
    names = { peer: 'peer_address' },
  ): Promise<Target> {
    const given = [fields.peerAddress, fields.groupId, fields.channelId ?? ''].filter(
      (value) => value !== '',
    );
    const allowed =
      fields.channelId === undefined
        ? `${names.peer} or group_id`
        : `${names.peer}, group_id or channel_id`;
    if (given.length !== 1) throw invalidArgument(`Exactly one of ${allowed} is required`);
    if (fields.peerAddress !== '') {
      const peer = await this.existingUser(fields.peerAddress, names.peer);
      return {
        conversationId: directConversationId(caller, peer),
        type: 'direct',
        peer,
        groupId: '',
        channelId: '',
      };
    }
    const [type, id] =
      fields.groupId !== ''
        ? (['group', fields.groupId] as const)
        : (['channel', fields.channelId!] as const);
    const conversationId = `${type}:${id}`;
    // Groups and channels write their members' records; without one the caller cannot see it.
    const member =
      id.length > 64 ? null : await this.members.findOne({ _id: memberId(conversationId, caller) });
    if (!member) throw notFound(`No such ${type}`);
    return {
      conversationId,
      type,
      peer: '',
      groupId: type === 'group' ? id : '',
      channelId: type === 'channel' ? id : '',
      historyFrom: member.historyFrom ?? 0,
    };
  }

  /**
   * Raises the conversation's floor of sequence numbers to `sequence` (never lowers it),
   * creating a direct chat with its first message. Written together with that message.
   */
  async raiseSequenceFloor(target: Target, sequence: number): Promise<void> {
    await this.conversations.updateOne(
      { _id: target.conversationId },
      {
        $max: { lastSequence: sequence },
        $setOnInsert: { type: target.type, disappearingTimerSeconds: 0, createdAt: new Date() },
      },
      { upsert: true },
    );
  }

  find(conversationId: string): Promise<Conversation | null> {
    return this.conversations.findOne({ _id: conversationId });
  }

  async setTimer(target: Target, seconds: number): Promise<void> {
    await this.conversations.updateOne(
      { _id: target.conversationId },
      {
        $set: { disappearingTimerSeconds: seconds },
        $setOnInsert: { type: target.type, lastSequence: 0, createdAt: new Date() },
      },
      { upsert: true },
    );
  }

  member(conversationId: string, address: string): Promise<ConversationMember | null> {
    return this.members.findOne({ _id: memberId(conversationId, address) });
  }

  /** Everyone with a member record of the conversation. */
  async memberAddresses(conversationId: string): Promise<string[]> {
    const members = await this.members.find({ conversationId }, { projection: { address: 1 } });
    return members.map((member) => member.address);
  }

  /**
   * The members of a group who may read its message `sequence` (joined at or before it): who
   * hears of a change to that message. A later joiner reads from its joining on, and must not
   * learn of older messages through their edits, deletions, reactions or pins.
   */
  async readersOf(conversationId: string, sequence: number): Promise<string[]> {
    const members = await this.members.find(
      {
        conversationId,
        $or: [{ historyFrom: { $exists: false } }, { historyFrom: { $lte: sequence } }],
      },
      { projection: { address: 1 } },
    );
    return members.map((member) => member.address);
  }

  /**
   * Records that message `sequence` mentions these members of a group (`all`: every member
   * but the sender), keeping each member's newest 100 mention numbers; written with the message.
   */
  async recordMentions(
    conversationId: string,
    sequence: number,
    mentioned: {
      readonly all: boolean;
      readonly addresses: readonly string[];
      readonly sender: string;
    },
  ): Promise<void> {
    const who = mentioned.all
      ? { address: { $ne: mentioned.sender } }
      : { address: { $in: mentioned.addresses.filter((a) => a !== mentioned.sender) } };
    await this.members.updateMany(
      { conversationId, ...who },
      { $push: { mentionSequences: { $each: [sequence], $slice: -100 } } },
    );
  }

  /** A deleted message no longer counts as an unread mention. */
  async forgetMention(conversationId: string, sequence: number): Promise<void> {
    await this.members.updateMany(
      { conversationId, mentionSequences: sequence },
      { $pull: { mentionSequences: sequence } },
    );
  }

  /** Groups' `members_can_pin`, kept on the conversation where messaging's pin rule reads it. */
  async setMembersCanPin(conversationId: string, allowed: boolean): Promise<void> {
    await this.conversations.updateOne(
      { _id: conversationId },
      { $set: { membersCanPin: allowed } },
    );
  }

  /**
   * The people who share a direct chat or a group with `address`, among its `maxConversations`
   * most recently active conversations (channels excluded), without `address` itself.
   */
  async peersOf(address: string, maxConversations: number): Promise<Set<string>> {
    const chats = await this.members.find(
      { address },
      { sort: { activityAt: -1 }, limit: maxConversations },
    );
    const peers = new Set(
      chats.filter((chat) => chat.type === 'direct').map((chat) => chat.peerAddress),
    );
    const groups = chats.filter((chat) => chat.type === 'group').map((chat) => chat.conversationId);
    if (groups.length > 0) {
      const members = await this.members.find(
        { conversationId: { $in: groups } },
        { projection: { address: 1 } },
      );
      for (const member of members) peers.add(member.address);
    }
    peers.delete(address);
    return peers;
  }

  /** True when `a` has a direct chat with `b` in its chat list (a story's `contacts` audience). */
  async hasDirectChat(a: string, b: string): Promise<boolean> {
    return (
      (await this.members.findOne(
        { _id: memberId(directConversationId(a, b), a) },
        { projection: { _id: 1 } },
      )) !== null
    );
  }

  /** The users `address` has a direct chat with, among its `maxConversations` most recently active chats. */
  async directPeersOf(address: string, maxConversations: number): Promise<string[]> {
    const chats = await this.members.find(
      { address },
      {
        sort: { activityAt: -1 },
        limit: maxConversations,
        projection: { type: 1, peerAddress: 1 },
      },
    );
    return chats
      .filter((chat) => chat.type === 'direct' && chat.peerAddress !== address)
      .map((chat) => chat.peerAddress);
  }

  /**
   * Moves the conversation to the top of these members' chat lists, creating the entries of a
   * direct chat. Groups and channels create their members' records themselves, so an address
   * without one (a departed member told of its departure) gets none here, and their members'
   * records move in one update rather than one per member.
   */
  async touch(target: Target, addresses: readonly string[], at: Date): Promise<void> {
    if (target.type !== 'direct') {
      await this.members.updateMany(
        { conversationId: target.conversationId, address: { $in: [...addresses] } },
        { $set: { activityAt: at } },
      );
      return;
    }
    await Promise.all(
      [...new Set(addresses)].map((address) =>
        this.members.updateOne(
          { _id: memberId(target.conversationId, address) },
          {
            $set: { activityAt: at },
            $setOnInsert: {
              conversationId: target.conversationId,
              address,
              type: target.type,
              peerAddress: otherOf(target.conversationId, address),
              groupId: target.groupId,
              channelId: target.channelId,
              lastReadSequence: 0,
              lastReadMessageId: '',
            },
          },
          { upsert: true },
        ),
      ),
    );
  }
}

/** The other participant of a direct conversation id (itself for a note to self). */
function otherOf(conversationId: string, address: string): string {
  const [, a, b] = conversationId.split(':');
  return a === address ? b! : a!;
}
