/**
 * What messaging asks of the channels area to carry channels in its routes (send, history,
 * read markers, chat list with `channel_id`). Channels keep no member records in the
 * conversation model (a post must not cost a write per subscriber), so messaging cannot find
 * them there: the channels area implements this port over its own posts, roles and read
 * markers, and the app hands it to messaging. Messaging never imports the channels area.
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';
import type { SequencePageRequest } from '../../platform/store/sequence-page.js';

/** A post as the messaging send routes describe it (kind, body and media checked by channels). */
export interface ChannelPostRequest {
  readonly clientMessageId: string;
  readonly kind: string;
  readonly ciphertext: Uint8Array;
  readonly mediaId: string;
  readonly durationMs: number;
}

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
}
