/**
 * What messaging asks of the channels area to carry channels in its routes (send, history,
 * read markers, chat list with `channel_id`). Channels keep no member records in the
 * conversation model (a post must not cost a write per subscriber), so messaging cannot find
 * them there: the channels area implements this port over its own posts, roles and read
 * markers, and the app hands it to messaging. Messaging never imports the channels area.
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';
import type { SequencePageRequest } from '../../platform/store/sequence-page.js';
import type { RelationTarget } from './relation-target.js';

/** A post as the messaging send routes describe it (kind, body and media checked by channels). */
export interface ChannelPostRequest {
  readonly clientMessageId: string;
  readonly kind: string;
  readonly ciphertext: Uint8Array;
  readonly mediaId: string;
  readonly durationMs: number;
  /** A post of the same channel this one replies to; empty when not a reply. */
  readonly replyToMessageId?: string;
  /** Mentioned followers and `@everyone`. */
  readonly mentions?: readonly string[];
  /** The sender's franking commitment (moderation.proto); empty or absent: not franked. */
  readonly frankingCommitment?: Uint8Array;
}

/** What a channel post's change is, for the `channel.post_updated` frame. */
export type ChannelPostChange = 'edited' | 'deleted' | 'reactions' | 'pinned' | 'unpinned';

export interface ChannelHistoryPage {
  readonly conversationId: string;
  readonly messages: Message[];
  readonly beforeCursor: string;
  readonly afterCursor: string;
  readonly hasMoreAfter: boolean;
}

export interface ChannelReadMarker {
  readonly conversationId: string;
  readonly moved: boolean;
  readonly lastReadMessageId: string;
  readonly unreadCount: number;
}

/** One channel the caller owns, administers or follows, as its chat-list entry needs it. */
export interface ChannelChat {
  readonly channelId: string;
  readonly title: string;
  readonly avatarMediaId: string;
  /** The newest post's time, or when the caller started following if later: orders the chat list. */
  readonly activityAt: Date;
  /** Posts after the caller's read marker. */
  readonly unreadCount: number;
  /** Of those, the posts that mention the caller or `@everyone`. */
  readonly unreadMentionCount: number;
  readonly lastReadMessageId: string;
}

export interface ChannelConversations {
  /** Publishes as `caller`: 404 unknown or private without a role, 403 unless owner or admin. */
  publish(
    caller: string,
    channelId: string,
    post: ChannelPostRequest,
  ): Promise<{ message: Message; duplicate: boolean }>;
  /** A page of the channel's posts for a reader: 404 unknown or private without a role. */
  history(
    caller: string,
    channelId: string,
    request: SequencePageRequest,
  ): Promise<ChannelHistoryPage>;
  /** Moves the caller's read marker forward to the post `upToMessageId` (404 when not in the channel). */
  markRead(caller: string, channelId: string, upToMessageId: string): Promise<ChannelReadMarker>;
  /** Every channel the caller holds a role in (at most CHANNEL_MAX_SUBSCRIPTIONS of them). */
  chatsOf(caller: string): Promise<ChannelChat[]>;
  /** The newest post of each of these channels that has one, by channel id. */
  lastPosts(channelIds: readonly string[]): Promise<Map<string, Message>>;

  // Relations (edits, deletions, reactions, pins) on posts: messaging checks them with its
  // relation rules over `relationTarget`, and the channels area, which keeps the posts, writes.

  /** A post as a relation's target with the caller's role: 404 unless readable and in the channel. */
  relationTarget(caller: string, channelId: string, postId: string): Promise<RelationTarget>;
  /**
   * Replaces the post's ciphertext if it has exactly `editCount` edits and is not deleted
   * (null otherwise: a concurrent edit or deletion won), rewrites its kept catch-up frame and
   * tells the followers connected now (`channel.post_updated`).
   */
  editPost(
    channelId: string,
    postId: string,
    ciphertext: Uint8Array,
    editCount: number,
    at: Date,
  ): Promise<Message | null>;
  /**
   * Deletes the post's content: ciphertext gone, media released, reactions removed; the
   * tombstone stays at its number, the kept catch-up frame becomes the tombstone and the
   * followers connected now are told. Deleting a tombstone changes nothing.
   */
  deletePost(
    channelId: string,
    postId: string,
    deletedBy: 'sender' | 'admin',
    deleterAddress: string,
    at: Date,
  ): Promise<Message>;
  /**
   * Adds (`add`) or removes the caller's reaction `key` on the post (at most 3 keys a reader:
   * `409 REACTION_LIMIT`), and answers the post with its counts and the caller's keys.
   */
  react(
    caller: string,
    channelId: string,
    postId: string,
    key: string,
    add: boolean,
  ): Promise<Message>;
  /** These posts as `caller` reads them (counts and own keys), in the given order; missing ones left out. */
  postsFor(caller: string, channelId: string, postIds: readonly string[]): Promise<Message[]>;
  /** Tells the followers connected now of a change to a post (a pin). */
  announceChange(channelId: string, post: Message, change: ChannelPostChange): Promise<void>;
}
