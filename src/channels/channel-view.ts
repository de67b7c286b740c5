/** Channels and posts as the API shows them (channels.proto `Channel`, messages.proto `Message`). */
import { create, toJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import { ChannelSchema } from '../gen/service/v1/channels_pb.js';
import type { Channel } from '../gen/service/v1/channels_pb.js';
import { MessageSchema } from '../gen/service/v1/messages_pb.js';
import type { Message } from '../gen/service/v1/messages_pb.js';
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

/** A post is a `Message` of the channel's conversation (`channel:<id>`), numbered by the channel. */
export function postView(post: StoredPost): Message {
  return create(MessageSchema, {
    id: post._id,
    clientMessageId: post.clientMessageId,
    conversationId: `channel:${post.channelId}`,
    senderAddress: post.senderAddress,
    channelId: post.channelId,
    kind: post.kind,
    ciphertext: new Uint8Array(post.ciphertext.buffer),
    mediaId: post.mediaId,
    durationMs: post.durationMs,
    pollId: post.pollId ?? '',
    sequence: post.sequence,
    sentAt: post.sentAt.toISOString(),
    status: 'sent',
  });
}

/** The post exactly as REST prints it, for the `channel.post` frame. */
export const postJson = (post: Message): JsonValue =>
  toJson(MessageSchema, post, { alwaysEmitImplicit: true });
