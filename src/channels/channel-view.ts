/** Channels and posts as the API shows them (channels.proto `Channel`, messages.proto `Message`). */
import { create, toJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import { ChannelSchema } from '../gen/service/v1/channels_pb.js';
import type { Channel } from '../gen/service/v1/channels_pb.js';
import { MessageSchema, ReactionCountSchema } from '../gen/service/v1/messages_pb.js';
import type { Message } from '../gen/service/v1/messages_pb.js';
import { frankingView } from '../messaging/messages/message-view.js';
import type { StoredChannel } from './channel.js';
import type { ChannelRole } from './channel-members.js';
import type { StoredPost } from './channel-posts.js';

export function channelView(channel: StoredChannel, role: ChannelRole | undefined): Channel {
  return create(ChannelSchema, {
    id: channel._id,
    name: channel.name,
    description: channel.description,
    avatarMediaId: channel.avatarMediaId,
    ownerAddress: channel.ownerAddress,
    subscriberCount: Math.max(0, channel.subscriberCount),
    createdAt: channel.createdAt.toISOString(),
    isPublic: channel.isPublic,
    myRole: role ?? '',
    lastPostAt: channel.lastPostAt ? channel.lastPostAt.toISOString() : '',
    lastSequence: channel.lastSequence,
  });
}

/** A reaction key as a field name of `reactionCounts` (base64url: no `.`, never a leading `$`). */
export const countField = (key: string) => Buffer.from(key, 'utf8').toString('base64url');
const keyOfField = (field: string) => Buffer.from(field, 'base64url').toString('utf8');

/** The post's counts, most used first (ties by key), without keys nobody holds any more. */
function countsOf(post: StoredPost) {
  return Object.entries(post.reactionCounts ?? {})
    .filter(([, count]) => count > 0)
    .map(([field, count]) => create(ReactionCountSchema, { key: keyOfField(field), count }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * A post is a `Message` of the channel's conversation (`channel:<id>`), numbered by the
 * channel; `myKeys` are the reader's own reaction keys. A deleted post is its tombstone.
 */
export function postView(post: StoredPost, myKeys: readonly string[] = []): Message {
  const deleted = post.deletedAt !== undefined;
  return create(MessageSchema, {
    id: post._id,
    clientMessageId: post.clientMessageId,
    conversationId: `channel:${post.channelId}`,
    senderAddress: post.senderAddress,
    channelId: post.channelId,
    kind: post.kind,
    ciphertext:
      deleted || !post.ciphertext ? new Uint8Array() : new Uint8Array(post.ciphertext.buffer),
    mediaId: deleted ? '' : post.mediaId,
    durationMs: post.durationMs,
    pollId: post.pollId ?? '',
    sequence: post.sequence,
    sentAt: post.sentAt.toISOString(),
    status: 'sent',
    replyToMessageId: post.replyToMessageId ?? '',
    mentions: post.mentions ?? [],
    editedAt: post.editedAt?.toISOString() ?? '',
    editCount: post.editCount ?? 0,
    deletedAt: post.deletedAt?.toISOString() ?? '',
    deletedBy: post.deletedBy ?? '',
    reactionCounts: deleted ? [] : countsOf(post),
    myReactionKeys: deleted ? [] : [...myKeys],
    ...frankingView(post.franking),
  });
}

/** The post exactly as REST prints it, for the `channel.post` frame. */
export const postJson = (post: Message): JsonValue =>
  toJson(MessageSchema, post, { alwaysEmitImplicit: true });
