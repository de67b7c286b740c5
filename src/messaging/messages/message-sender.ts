/**
 * Accepting a message: the one path every send RPC (text, image, voice, video, file) and every
 * server-generated system message takes. The message is durable before anyone hears of it: it
 * is inserted (the store acknowledges only once the write is durable) while the conversation
 * moves up the chat lists, and only then do the `message.new` events go out.
 *
 * Idempotency: `(sender, client_message_id)` is unique in the store. A retry finds the stored
 * message and gets it back (`duplicate`); two identical requests racing each other both reach
 * the insert, and the loser reads the winner's message (its sequence number is left unused, a
 * gap clients already tolerate).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Binary } from 'bson';
import type { BlockList } from '../../contacts/block-list.js';
import { conflict, invalidArgument, permissionDenied } from '../../platform/errors/api-error.js';
import type { Collection } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import type { Conversations, Target } from '../conversations/conversations.js';
import type { MessagingEvents } from '../../realtime/events/messaging-events.js';
import type { MediaCatalog } from './media-catalog.js';
import { messageJson, messageView } from './message-view.js';
import type { MessageKind, StoredMessage } from './stored-message.js';

export interface SendRequest {
  readonly clientMessageId: string;
  readonly recipientAddress: string;
  readonly groupId: string;
  readonly channelId: string;
  readonly kind: MessageKind;
  readonly ciphertext: Uint8Array;
  readonly mediaId: string;
  readonly durationMs: number;
  readonly viewOnce: boolean;
}

export interface SendResult {
  readonly message: StoredMessage;
  readonly duplicate: boolean;
}

const CLIENT_MESSAGE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_CIPHERTEXT_BYTES = 65_536;
/** A view-once message nobody opens disappears after 30 days (messages.proto). */
const VIEW_ONCE_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;

export class MessageSender {
  constructor(
    private readonly conversations: Conversations,
    private readonly messages: Collection<StoredMessage>,
    private readonly blocks: BlockList,
    private readonly media: MediaCatalog,
    private readonly events: MessagingEvents,
  ) {}

  async send(sender: string, request: SendRequest): Promise<SendResult> {
    if (!CLIENT_MESSAGE_ID.test(request.clientMessageId)) {
      throw invalidArgument('client_message_id must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -');
    }
    if (request.ciphertext.length === 0 || request.ciphertext.length > MAX_CIPHERTEXT_BYTES) {
      throw invalidArgument(`ciphertext must have 1 to ${MAX_CIPHERTEXT_BYTES} bytes`);
    }
    const target = await this.conversations.resolve(
      sender,
      { peerAddress: request.recipientAddress, groupId: request.groupId, channelId: request.channelId },
      { peer: 'recipient_address' },
    );
    if (request.viewOnce && target.type !== 'direct') throw invalidArgument('view_once is only for direct messages');
    const requestDigest = digestOf(target, request);
    const earlier = await this.messages.findOne({ senderAddress: sender, clientMessageId: request.clientMessageId });
    if (earlier) return this.retried(earlier, requestDigest);

    const withheld = await this.checkMayPost(sender, target);
    if (request.mediaId !== '') await this.media.requireOwnUpload(sender, request.mediaId, request.kind);
    const message = await this.numbered(target, request.viewOnce, {
      clientMessageId: request.clientMessageId,
      requestDigest,
      senderAddress: sender,
      kind: request.kind,
      ciphertext: new Binary(request.ciphertext),
      mediaId: request.mediaId,
      durationMs: request.durationMs,
      withheld,
    });
    try {
      await this.store(target, message);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      const winner = await this.messages.findOne({ senderAddress: sender, clientMessageId: request.clientMessageId });
      if (!winner) throw error;
      return this.retried(winner, requestDigest);
    }
    return { message, duplicate: false };
  }

  /** A message the server writes into a conversation (timer changes, group events). */
  async appendSystem(target: Target, systemEvent: string, systemData: Record<string, unknown>): Promise<StoredMessage> {
    const message = await this.numbered(target, false, { senderAddress: '', kind: 'system', systemEvent, systemData });
    await this.store(target, message);
    return message;
  }

  /** A new message of the conversation: its next sequence number, its expiry, and the given fields over the defaults. */
  private async numbered(target: Target, viewOnce: boolean, fields: Partial<StoredMessage> & Pick<StoredMessage, 'senderAddress' | 'kind'>): Promise<StoredMessage> {
    const { sequence, disappearingTimerSeconds } = await this.conversations.nextSequence(target);
    const sentAt = new Date();
    return {
      _id: newMessageId(),
      conversationId: target.conversationId,
      sequence,
      recipientAddress: target.peer,
      groupId: target.groupId,
      channelId: target.channelId,
      mediaId: '',
      durationMs: 0,
      stickerId: '',
      pollId: '',
      sentAt,
      ...expiryOf(sentAt, disappearingTimerSeconds, viewOnce),
      viewOnce,
      viewedAt: null,
      status: 'sent',
      withheld: false,
      systemEvent: '',
      systemData: null,
      ...fields,
    };
  }

  private retried(earlier: StoredMessage, requestDigest: string): SendResult {
    if (earlier.requestDigest !== requestDigest) throw conflict('client_message_id was already used for a different message');
    return { message: earlier, duplicate: true };
  }

  /** Refuses what the sender may not post; answers whether the message is withheld from its recipient. */
  private async checkMayPost(sender: string, target: Target): Promise<boolean> {
    if (target.type === 'channel') {
      const member = await this.conversations.member(target.conversationId, sender);
      if (member?.role !== 'owner' && member?.role !== 'admin') throw permissionDenied('Only the owner and admins post in a channel');
      return false;
    }
    if (target.type !== 'direct' || target.peer === sender) return false;
    if (await this.blocks.isBlocked(sender, target.peer)) throw permissionDenied('You have blocked this user; unblock to send');
    return this.blocks.isBlocked(target.peer, sender);
  }

  /**
   * Inserts the message and moves the conversation up its audience's chat lists together (one
   * group commit rather than two), then, once both are durable, tells the audience. A lost
   * idempotency race leaves only a harmless chat-list bump behind.
   */
  private async store(target: Target, message: StoredMessage): Promise<void> {
    const audience = await this.audienceOf(target, message);
    await Promise.all([this.messages.insertOne(message), this.conversations.touch(target, audience, message.sentAt)]);
    await this.events.durable('message.new', audience, { message: messageJson(messageView(message)) });
  }

  private async audienceOf(target: Target, message: StoredMessage): Promise<string[]> {
    if (target.type === 'direct') {
      const participants = target.conversationId.split(':').slice(1);
      return message.withheld ? [message.senderAddress] : [...new Set(participants)];
    }
    const members = await this.conversations.members.find({ conversationId: target.conversationId }, { projection: { address: 1 } });
    return members.map((member) => member.address);
  }
}

function expiryOf(sentAt: Date, timerSeconds: number, viewOnce: boolean): { expiresAt?: Date } {
  const lifetimes = [timerSeconds > 0 ? timerSeconds * 1000 : Infinity, viewOnce ? VIEW_ONCE_LIFETIME_MS : Infinity];
  const lifetime = Math.min(...lifetimes);
  return Number.isFinite(lifetime) ? { expiresAt: new Date(sentAt.getTime() + lifetime) } : {};
}

function digestOf(target: Target, request: SendRequest): string {
  const fields = JSON.stringify([target.conversationId, request.kind, request.mediaId, request.durationMs, request.viewOnce]);
  return createHash('sha256').update(fields).update(request.ciphertext).digest('base64url');
}

const newMessageId = () => randomBytes(16).toString('base64url');
