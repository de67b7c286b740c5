/**
 * Publishing a post: stored once under the channel's next number, its media held by the post
 * (before anyone hears of it, so subscribers can download it), then handed to the channel's
 * topic (one publish, whatever the number of subscribers; channel-post-stream.ts). The store
 * is the record: when the publish fails (Redis away) the post stays published, live followers
 * miss it and are told to re-read when the next post shows the gap, and reconnecting ones
 * re-read it over REST. A retry of the same post publishes it again (harmless: connections skip
 * numbers they have sent). A retry also holds the media again (a no-op), which mends a
 * publish cut off between storing the post and holding its media.
 */
import type { Logger } from '../platform/logging/logger.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import { channelPostFrame } from '../events/channel-post-stream.js';
import type { ChannelRepository } from './channel.js';
import type { ChannelMedia } from './channel-media.js';
import type { ChannelPosts, NewPost } from './channel-posts.js';
import { postJson, postView } from './channel-view.js';
import type { Message } from '../gen/service/v1/messages_pb.js';

/** What the polls area may post in a channel: a poll (polls area's `PollPosts`). */
export interface ChannelPollPosts {
  publishPoll(
    channelId: string,
    sender: string,
    pollId: string,
  ): Promise<{ post: Message; duplicate: boolean }>;
}

export class ChannelPublisher implements ChannelPollPosts {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly posts: ChannelPosts,
    private readonly stream: ChannelPostStream,
    private readonly media: ChannelMedia,
    private readonly logger: Logger,
  ) {}

  async publish(post: NewPost): Promise<{ post: Message; duplicate: boolean }> {
    const { post: stored, duplicate } = await this.posts.append(post);
    if (stored.mediaId !== '')
      await this.media.attachToPost(stored.senderAddress, stored.mediaId, stored.kind, {
        channelId: stored.channelId,
        postId: stored._id,
      });
    if (!duplicate)
      await this.channels.recordPost(stored.channelId, stored.sequence, stored.sentAt);
    const view = postView(stored);
    try {
      await this.stream.publish(
        stored.channelId,
        stored.sequence,
        channelPostFrame(stored.channelId, stored.sequence, postJson(view)),
      );
    } catch (error) {
      this.logger.warn(
        { err: error, channelId: stored.channelId, sequence: stored.sequence },
        'channel post not published; followers re-read it over REST',
      );
    }
    return { post: view, duplicate };
  }

  /**
   * A poll created in the channel, as a `poll` post carrying its id (no ciphertext: polls are
   * not end-to-end encrypted). Its idempotency key `poll:<id>` cannot be a client's (clients'
   * keys have no `:`), so a retry of the same poll is the same post.
   */
  publishPoll(
    channelId: string,
    sender: string,
    pollId: string,
  ): Promise<{ post: Message; duplicate: boolean }> {
    return this.publish({
      channelId,
      senderAddress: sender,
      clientMessageId: `poll:${pollId}`,
      kind: 'poll',
      mediaId: '',
      durationMs: 0,
      pollId,
      ciphertext: new Uint8Array(),
    });
  }
}
