/** A stored message as the API shows it to one viewer (messages.proto `Message`). */
import { create, toJson } from '@bufbuild/protobuf';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { EncryptedReactionSchema, MessageSchema } from '../../gen/service/v1/messages_pb.js';
import type { Message } from '../../gen/service/v1/messages_pb.js';
import type { StoredReaction } from './encrypted-reactions.js';
import type { StoredFranking } from '../conversations/stored-franking.js';
import type { StoredMessage } from './stored-message.js';

export interface ViewOptions {
  /** Whether the viewer starred it. */
  starred?: boolean;
  /** Only ViewOnceMessage shows a view-once message's content, that one time. */
  openViewOnce?: boolean;
  /** The message's encrypted reactions, oldest first (none are shown on a tombstone). */
  reactions?: readonly StoredReaction[];
  /** Whether the message is pinned in its conversation. */
  pinned?: boolean;
}

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : '');

export function messageView(stored: StoredMessage, options: ViewOptions = {}): Message {
  const deleted = stored.deletedAt !== undefined;
  const hideContent = deleted || (stored.viewOnce && !options.openViewOnce);
  return create(MessageSchema, {
    id: stored._id,
    clientMessageId: stored.clientMessageId ?? '',
    conversationId: stored.conversationId,
    senderAddress: stored.senderAddress,
    recipientAddress: stored.recipientAddress,
    groupId: stored.groupId,
    channelId: stored.channelId,
    kind: stored.kind,
    ciphertext:
      hideContent || !stored.ciphertext
        ? new Uint8Array()
        : new Uint8Array(stored.ciphertext.buffer),
    mediaId: hideContent ? '' : stored.mediaId,
    mediaSize: hideContent ? 0 : (stored.mediaSize ?? 0),
    mediaSha256: hideContent ? '' : (stored.mediaSha256 ?? ''),
    mediaContentType: hideContent ? '' : (stored.mediaContentType ?? ''),
    durationMs: stored.durationMs,
    stickerId: stored.stickerId,
    pollId: stored.pollId,
    sequence: stored.sequence,
    sentAt: iso(stored.sentAt),
    expiresAt: iso(stored.expiresAt),
    viewOnce: stored.viewOnce,
    viewedAt: iso(stored.viewedAt),
    starred: options.starred ?? false,
    status: stored.status,
    systemEvent: stored.systemEvent,
    ...(stored.systemData ? { systemData: stored.systemData as JsonObject } : {}),
    replyToMessageId: stored.replyToMessageId ?? '',
    mentions: stored.mentions ?? [],
    editedAt: iso(stored.editedAt),
    editCount: stored.editCount ?? 0,
    deletedAt: iso(stored.deletedAt),
    deletedBy: stored.deletedBy ?? '',
    reactions: deleted ? [] : (options.reactions ?? []).map(reactionView),
    pinned: !deleted && (options.pinned ?? false),
    ...frankingView(stored.franking),
  });
}

/** A franked message's commitment, tag and key id; kept on a tombstone, which reveals nothing. */
export const frankingView = (franking: StoredFranking | undefined) =>
  franking
    ? {
        frankingCommitment: new Uint8Array(franking.commitment.buffer),
        frankingTag: new Uint8Array(franking.tag.buffer),
        frankingKeyId: franking.keyId,
      }
    : {};

const reactionView = (reaction: StoredReaction) =>
  create(EncryptedReactionSchema, {
    reactorAddress: reaction.reactorAddress,
    ciphertext: new Uint8Array(reaction.ciphertext.buffer),
    reactedAt: reaction.reactedAt.toISOString(),
  });

/** The JSON of a message exactly as REST prints it, for WebSocket events. */
export function messageJson(message: Message): JsonValue {
  return toJson(MessageSchema, message, { alwaysEmitImplicit: true });
}
