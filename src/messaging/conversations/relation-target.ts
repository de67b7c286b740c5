/**
 * The one shape every relation (edit, delete, react, reply, pin) checks its target message
 * in, whatever the conversation: a direct chat's or group's message (messaging's store) or a
 * channel's post (the channels area, through `ChannelConversations.relationTarget`). The rules
 * in relation-rules.ts read only this, so direct chats, groups and channels share one path.
 */
import type { StoredFranking } from './stored-franking.js';
import type { ConversationType } from './conversation.js';

export type ConversationRole = 'owner' | 'admin' | 'member';

export interface RelationTarget {
  readonly conversationId: string;
  readonly type: ConversationType;
  readonly messageId: string;
  readonly sequence: number;
  /** Empty for system messages. */
  readonly senderAddress: string;
  readonly kind: string;
  readonly sentAt: Date;
  readonly viewOnce: boolean;
  /** Deleted for everyone: a tombstone. */
  readonly deleted: boolean;
  readonly editCount: number;
  /** The caller's role in a group or channel (channels: `member` for a subscriber); else none. */
  readonly callerRole: ConversationRole | undefined;
  /** Groups: whether plain members may pin (the group's `members_can_pin`). */
  readonly membersCanPin: boolean;
  /** A franked message's commitment and the server's tag (moderation.proto's reports check them). */
  readonly franking?: StoredFranking;
}
