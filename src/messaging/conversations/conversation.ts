/**
 * Conversations and each participant's view of one. The same two records serve direct chats
 * (two members, created by the first message or timer change between two users), groups and
 * channels (one member record per member or subscriber, written by their services), so those
 * fit without another model.
 */
import type { IndexSpec } from '../../platform/store/document-store.js';

export type ConversationType = 'direct' | 'group' | 'channel';

export interface Conversation {
  /** `dm:<lower address>:<higher address>` for direct chats; `group:<id>` and `channel:<id>` otherwise. */
  _id: string;
  type: ConversationType;
  /**
   * A floor under the conversation's sequence numbers: raised with each message, in the same
   * write, and never lowered, so a number stays spent after its message disappeared
   * (MessageNumbering).
   */
  lastSequence: number;
  /** 0 when off. */
  disappearingTimerSeconds: number;
  createdAt: Date;
  /** A group's or channel's name for the chat list, written by its service; absent for direct chats. */
  title?: string;
  /** Groups: whether plain members may pin messages (groups' UpdateGroupSettings). */
  membersCanPin?: boolean;
}

/** One participant's state in a conversation: read marker and position in the chat list. */
export interface ConversationMember {
  /** `<conversation id>|<address>` */
  _id: string;
  conversationId: string;
  address: string;
  type: ConversationType;
  /** The other participant of a direct chat; empty otherwise. */
  peerAddress: string;
  groupId: string;
  channelId: string;
  /** In groups and channels: `owner`, `admin` or `member` (set by their services). */
  role?: 'owner' | 'admin' | 'member';
  /** In groups and channels: when the member joined (set by their services). */
  joinedAt?: Date;
  /**
   * In groups: the first sequence number the member may read (its history starts where it
   * joined); absent or 0 for direct chats and the members a group was created with.
   */
  historyFrom?: number;
  lastReadSequence: number;
  lastReadMessageId: string;
  /** In groups: the newest sequence number the member has fetched in a history page (delivery receipts). */
  lastFetchedSequence?: number;
  /** When the conversation last changed for this member; orders the chat list. */
  activityAt: Date;
  /**
   * In groups: the sequence numbers of the newest messages that mention this member or
   * `@everyone` (at most 100, relations/mentions.ts); those after the read marker are its
   * unread mentions.
   */
  mentionSequences?: number[];
}

export const CONVERSATIONS = 'conversations';
export const CONVERSATION_MEMBERS = 'conversation_members';

export const conversationIndexes: IndexSpec[] = [
  {
    collection: CONVERSATION_MEMBERS,
    name: 'chat_list',
    key: { address: 1, activityAt: -1, _id: 1 },
  },
  // A group's or channel's audience (every send to it, presence).
  { collection: CONVERSATION_MEMBERS, name: 'by_conversation', key: { conversationId: 1 } },
];

/** The same id from both sides, so two first messages crossing each other meet in one conversation. */
export function directConversationId(a: string, b: string): string {
  return a < b ? `dm:${a}:${b}` : `dm:${b}:${a}`;
}

export const memberId = (conversationId: string, address: string) => `${conversationId}|${address}`;
