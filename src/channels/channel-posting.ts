/**
 * Publishing a post on someone's behalf: the request's shape (idempotency key, kind, body,
 * media, duration), the caller's right to publish (404 unknown or private without a role, 403
 * unless owner or admin), the media upload's owner and kind, then the publisher. The one entry
 * point of both PublishChannelPost and the messaging send routes with `channel_id`, so
 * idempotency, media checks and the topic fan-out stay in one place.
 *
 * A reply must name a post of the channel; mentions name followers (or `@everyone`, which only
 * the owner and admins, the only publishers, can send) and wake them.
 *
 * The moderation area admits the post first (a suspended publisher is refused); a franked post
 * is tagged as a franked message is (send-admission.ts).
 *
 * The publisher has read what it published: its own read marker moves to the new post (one
 * write, the publisher's; subscribers' unread counts come from the channel's last number).
 */
import type { Message } from '../gen/service/v1/messages_pb.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import { EVERYONE, parseMentions } from '../messaging/messages/mentions.js';
import type { WakeUps } from '../push/delivery/wake-ups.js';
import { checkFrankingCommitment } from '../messaging/messages/send-admission.js';
import type { SendAdmission } from '../messaging/messages/send-admission.js';
import type { ChannelMembers } from './channel-members.js';
import type { ChannelPosts } from './channel-posts.js';
import type { ChannelGate } from './channel-access.js';
import type { ChannelMedia } from './channel-media.js';
import type { ChannelPublisher } from './channel-publisher.js';
import type { ChannelReadMarkers } from './channel-read-markers.js';

export interface PostRequest {
  readonly channelId: string;
  readonly clientMessageId: string;
  /** Empty means `text`. */
  readonly kind: string;
  readonly ciphertext: Uint8Array;
  readonly mediaId: string;
  readonly durationMs: number;
  /** A post of this channel the new one replies to; empty when not a reply. */
  readonly replyToMessageId?: string;
  /** Mentioned followers and `@everyone`. */
  readonly mentions?: readonly string[];
  /** The sender's franking commitment (moderation.proto); empty or absent: not franked. */
  readonly frankingCommitment?: Uint8Array;
}

const MAX_CIPHERTEXT_BYTES = 65_536;
const MAX_DURATION_MS = 3_600_000;
const CLIENT_MESSAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const POST_KINDS = ['text', 'image', 'voice', 'video', 'file'];
const TIMED_KINDS = ['voice', 'video'];

export class ChannelPosting {
  constructor(
    private readonly gate: ChannelGate,
    private readonly media: Pick<ChannelMedia, 'requireOwnUpload'>,
    private readonly publisher: ChannelPublisher,
    private readonly markers: ChannelReadMarkers,
    private readonly posts: ChannelPosts,
    private readonly members: ChannelMembers,
    private readonly wakeUps: WakeUps,
    private readonly admission: SendAdmission,
  ) {}

  async publish(
    caller: string,
    request: PostRequest,
  ): Promise<{ post: Message; duplicate: boolean }> {
    if (!CLIENT_MESSAGE_ID.test(request.clientMessageId))
      throw invalidArgument(
        'client_message_id must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -',
      );
    const kind = request.kind === '' ? 'text' : request.kind;
    if (!POST_KINDS.includes(kind))
      throw invalidArgument(`kind must be one of ${POST_KINDS.join(', ')}`);
    if (request.ciphertext.length === 0 || request.ciphertext.length > MAX_CIPHERTEXT_BYTES)
      throw invalidArgument(`ciphertext must have 1 to ${MAX_CIPHERTEXT_BYTES} bytes`);
    if ((kind === 'text') !== (request.mediaId === ''))
      throw invalidArgument(
        kind === 'text' ? 'media_id must be empty for text' : `media_id is required for ${kind}`,
      );
    const timed = TIMED_KINDS.includes(kind);
    if (
      timed
        ? request.durationMs < 1 || request.durationMs > MAX_DURATION_MS
        : request.durationMs !== 0
    ) {
      throw invalidArgument(
        timed
          ? `duration_ms must be 1 to ${MAX_DURATION_MS}`
          : 'duration_ms must be 0 for this kind',
      );
    }
    const mentions = parseMentions(request.mentions ?? []);
    const frankingCommitment = checkFrankingCommitment(
      request.frankingCommitment ?? new Uint8Array(),
    );
    const { channel } = await this.gate.allowed(request.channelId, caller, 'publish');
    const replyTo = request.replyToMessageId ?? '';
    if (replyTo !== '' && !(await this.posts.find(channel._id, replyTo)))
      throw notFound('reply_to_message_id: no such post in this channel');
    for (const mention of mentions)
      if (mention !== EVERYONE && !(await this.members.find(channel._id, mention)))
        throw notFound(`mentions: ${mention} does not follow this channel`);
    if (kind !== 'text') await this.media.requireOwnUpload(caller, request.mediaId, kind);
    await this.admission.admit(caller);
    const published = await this.publisher.publish({
      channelId: channel._id,
      senderAddress: caller,
      clientMessageId: request.clientMessageId,
      kind,
      ciphertext: request.ciphertext,
      mediaId: request.mediaId,
      durationMs: request.durationMs,
      replyToMessageId: replyTo,
      mentions,
      ...(frankingCommitment
        ? { franking: { commitment: frankingCommitment, frank: this.admission } }
        : {}),
    });
    await this.markers.advance(channel._id, caller, published.post.sequence, published.post.id);
    if (!published.duplicate && mentions.length > 0)
      await this.wakeMentioned(channel._id, caller, mentions, published.post.sequence);
    return published;
  }

  /**
   * Channel posts wake nobody (a broadcast to thousands), except those they mention: a
   * `mention` push, queued and not awaited (`@everyone` wakes every follower, 100 per job).
   */
  private async wakeMentioned(
    channelId: string,
    caller: string,
    mentions: readonly string[],
    sequence: number,
  ): Promise<void> {
    const addresses = mentions.includes(EVERYONE)
      ? (await this.members.ofChannel(channelId)).map((member) => member.address)
      : mentions;
    const recipients = addresses.filter((address) => address !== caller);
    if (recipients.length > 0)
      void this.wakeUps.wake(recipients, {
        kind: 'mention',
        conversationId: `channel:${channelId}`,
        seq: sequence,
      });
  }
}
