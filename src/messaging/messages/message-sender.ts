/**
 * Accepting a message: the one path every send RPC (text, image, voice, video, file) and every
 * server-generated system message takes. The message is durable before anyone hears of it: it
 * is inserted with its sequence number (MessageNumbering), in one group commit with the
 * conversation's floor of numbers and its move up the chat lists, so a send costs one durable
 * write; only then do the `message.new` events go out (MessageAnnouncer). The message is stored
 * as unannounced, so that one whose events did not go out (a failed publish, a crash in
 * between) is announced by a retry or by the sweeper.
 *
 * Idempotency: `(sender, client_message_id)` is unique in the store. A retry finds the stored
 * message and gets it back (`duplicate`), announcing it if it still is not. Requests with one
 * key take turns in a process, and across processes the later one meets the earlier at the
 * conversation's next number: either way it finds the earlier's message before it takes a
 * number. Only two that reach the insert at the same instant on two processes meet at the
 * idempotency index; the loser reads the winner's message, and the number it tried stays free
 * for that process's next message.
 *
 * Before a new message is stored the moderation area admits it (`SendAdmission`: suspended
 * senders, the spam limit on new accounts), and a franked one gets the server's tag over its
 * commitment, id, conversation, sender and time.
 *
 * A new direct message also wakes its recipient's offline devices (push, kind `message`): only
 * queued, never awaited, so push can neither slow nor fail a send.
 */
import { createHash } from 'node:crypto';
import { Binary } from 'bson';
import type { BlockList } from '../../contacts/block-list.js';
import type { WakeUps } from '../../push/delivery/wake-ups.js';
import { conflict, invalidArgument, permissionDenied } from '../../platform/errors/api-error.js';
import type { Collection } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import type { Conversations, Target } from '../conversations/conversations.js';
import type { MediaAttachments } from './media-attachments.js';
import { audienceOf } from './message-audience.js';
import type { MessageAnnouncer } from './message-announcer.js';
import type { MessageNumbering } from './message-numbering.js';
import { SerialQueues } from '../../platform/concurrency/serial-queues.js';
import { randomId } from '../../platform/random/random-id.js';
import { byIdempotencyKey, type MessageKind, type StoredMessage } from './stored-message.js';
import { EVERYONE } from './mentions.js';
import type { StoredFranking } from '../conversations/stored-franking.js';
import { checkFrankingCommitment } from './send-admission.js';
import type { SendAdmission } from './send-admission.js';

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
  /** The catalog sticker of a `sticker` message, whose ciphertext (extras) may be empty. */
  readonly stickerId?: string;
  /** A message of the same conversation this one replies to. */
  readonly replyToMessageId?: string;
  /** Groups: mentioned members and `@everyone`. */
  readonly mentions?: readonly string[];
  /** The poll of a `poll` message (sent by the polls area only), whose ciphertext is empty. */
  readonly pollId?: string;
  /** HMAC-SHA256 of the plaintext under the franking key inside the ciphertext; empty: not franked. */
  readonly frankingCommitment?: Uint8Array;
}

/**
 * The check of what a new message says about other messages and members (its reply target
 * and mentions), answering the fields to record: relations/send-relations.ts, which reads
 * messages as a relation's target does.
 */
export interface SendRelationCheck {
  check(
    sender: string,
    target: Target,
    request: { replyToMessageId?: string; mentions?: readonly string[] },
  ): Promise<{ replyToMessageId?: string; mentions?: string[] }>;
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
    private readonly media: MediaAttachments,
    private readonly announcer: MessageAnnouncer,
    private readonly numbering: MessageNumbering,
    private readonly wakeUps: WakeUps,
    private readonly relations: SendRelationCheck,
    private readonly admission: SendAdmission,
  ) {}

  private readonly sameKeyTurns = new SerialQueues();

  async send(sender: string, request: SendRequest): Promise<SendResult> {
    requireClientMessageId(request.clientMessageId);
    const minCiphertext = request.kind === 'sticker' || request.kind === 'poll' ? 0 : 1;
    if (
      request.ciphertext.length < minCiphertext ||
      request.ciphertext.length > MAX_CIPHERTEXT_BYTES
    ) {
      throw invalidArgument(
        `ciphertext must have ${minCiphertext} to ${MAX_CIPHERTEXT_BYTES} bytes`,
      );
    }
    const commitment = checkFrankingCommitment(request.frankingCommitment ?? new Uint8Array());
    const target = await this.conversations.resolve(
      sender,
      {
        peerAddress: request.recipientAddress,
        groupId: request.groupId,
        channelId: request.channelId,
      },
      { peer: 'recipient_address' },
    );
    if (request.viewOnce && target.type !== 'direct')
      throw invalidArgument('view_once is only for direct messages');
    const requestDigest = digestOf(target, request);
    // Requests with one idempotency key take turns in this process, so that a retry racing its
    // original finds it stored instead of taking a number of its own.
    return this.sameKeyTurns.run(`${sender} ${request.clientMessageId}`, async () => {
      const earlier = await this.storedSend(sender, request.clientMessageId);
      if (earlier) return this.retried(earlier, requestDigest);

      await this.admission.admit(sender, this.directPeer(sender, target));
      const withheld = await this.checkMayPost(sender, target);
      const related = await this.relations.check(sender, target, request);
      const fields: MessageFields = {
        // Chosen up front: the media is attached to this id before the message is written.
        _id: newMessageId(),
        clientMessageId: request.clientMessageId,
        requestDigest,
        senderAddress: sender,
        kind: request.kind,
        ciphertext: new Binary(request.ciphertext),
        mediaId: request.mediaId,
        durationMs: request.durationMs,
        stickerId: request.stickerId ?? '',
        pollId: request.pollId ?? '',
        withheld,
        ...related,
      };
      try {
        return await this.numbering.append(target.conversationId, {
          // The number was taken by another process, perhaps by this very message sent there.
          storedMeanwhile: async () => {
            const stored = await this.storedSend(sender, request.clientMessageId);
            return stored && (await this.retried(stored, requestDigest));
          },
          write: async (sequence) => ({
            message: await this.store(target, sequence, request.viewOnce, fields, commitment),
            duplicate: false,
          }),
        });
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
        const winner = await this.storedSend(sender, request.clientMessageId);
        if (!winner) throw error;
        return this.retried(winner, requestDigest);
      }
    });
  }

  /** A message the server writes into a conversation (timer changes, group events). */
  async appendSystem(
    target: Target,
    systemEvent: string,
    systemData: Record<string, unknown>,
  ): Promise<StoredMessage> {
    const fields: MessageFields = { senderAddress: '', kind: 'system', systemEvent, systemData };
    return this.numbering.append(target.conversationId, {
      write: (sequence) => this.store(target, sequence, false, fields),
    });
  }

  /**
   * In the conversation's turn, with its next number: writes the message, the conversation's
   * floor of numbers and its move up the audience's chat lists in one group commit (the
   * message first, so the floor never gets ahead of it), together with the announced marks of
   * earlier messages. Once all three are durable it tells the audience, still in the turn, so
   * that a process announces a conversation's messages in their order.
   */
  private async store(
    target: Target,
    sequence: number,
    viewOnce: boolean,
    fields: MessageFields,
    frankingCommitment?: Uint8Array,
  ): Promise<StoredMessage> {
    const timerSeconds =
      (await this.conversations.find(target.conversationId))?.disappearingTimerSeconds ?? 0;
    const message = newMessage(target, sequence, timerSeconds, viewOnce, fields);
    if (frankingCommitment) message.franking = this.franked(message, frankingCommitment);
    if (message.mediaId !== '') Object.assign(message, await this.attachMedia(message));
    const audience = await audienceOf(this.conversations, message);
    void this.announcer.writeMarks();
    const mentions = message.mentions ?? [];
    await Promise.all([
      this.messages.insertOne(message),
      this.conversations.raiseSequenceFloor(target, sequence),
      this.conversations.touch(target, audience, message.sentAt),
      ...(mentions.length > 0
        ? [
            this.conversations.recordMentions(target.conversationId, sequence, {
              all: mentions.includes(EVERYONE),
              addresses: mentions,
              sender: message.senderAddress,
            }),
          ]
        : []),
    ]);
    await this.announcer.announce(message, audience);
    this.wakeRecipients(target, message, audience);
    return message;
  }

  /**
   * Push wake-ups for the recipients' offline devices (the push dispatcher skips connected
   * ones and coalesces bursts): a user's direct or group message, never a server-written
   * event (a rename would wake a whole group) nor a withheld message; not the sender's devices.
   */
  private wakeRecipients(
    target: Target,
    message: StoredMessage,
    audience: readonly string[],
  ): void {
    if (message.kind === 'system' || message.withheld) return;
    const kind = target.type === 'direct' ? 'message' : 'group_message';
    const recipients = audience.filter((address) => address !== message.senderAddress);
    // Mentioned members get a `mention` wake-up, which is never coalesced (wake-kinds.ts).
    const mentions = message.mentions ?? [];
    const mentioned = mentions.includes(EVERYONE)
      ? recipients
      : recipients.filter((address) => mentions.includes(address));
    const others = recipients.filter((address) => !mentioned.includes(address));
    const wake = { conversationId: target.conversationId, seq: message.sequence };
    if (others.length > 0) void this.wakeUps.wake(others, { kind, ...wake });
    if (mentioned.length > 0) void this.wakeUps.wake(mentioned, { kind: 'mention', ...wake });
  }

  /**
   * Checks the attachment (the sender's upload, of the message's kind) and records the message
   * as its reference, lasting as long as the message; before the message is written, so that
   * a stored message's media is always referenced. Answers what the message records about it.
   */
  private async attachMedia(
    message: StoredMessage,
  ): Promise<Pick<StoredMessage, 'mediaSize' | 'mediaSha256' | 'mediaContentType'>> {
    const attached = await this.media.attach(message.senderAddress, message.mediaId, message.kind, {
      messageId: message._id,
      conversationId: message.conversationId,
      until: message.expiresAt ?? null,
      grantsAccess: !message.withheld,
    });
    return {
      mediaSize: attached.size,
      mediaSha256: attached.sha256,
      mediaContentType: attached.contentType,
    };
  }

  /** The other participant of a direct chat with someone else, for the spam limit. */
  private directPeer(sender: string, target: Target) {
    if (target.type !== 'direct' || target.peer === sender) return undefined;
    const peer = target.peer;
    return {
      peer,
      hasWritten: async () =>
        (await this.messages.findOne(
          { conversationId: target.conversationId, senderAddress: peer },
          { projection: { _id: 1 } },
        )) !== null,
    };
  }

  /** The stored franking of a new message: its commitment and the server's tag over its binding. */
  private franked(message: StoredMessage, commitment: Uint8Array): StoredFranking {
    const { tag, keyId } = this.admission.frank({
      messageId: message._id,
      conversationId: message.conversationId,
      senderAddress: message.senderAddress,
      sentAt: message.sentAt,
      commitment,
    });
    return { commitment: new Binary(commitment), tag: new Binary(tag), keyId };
  }

  /** The message stored earlier under this idempotency key, if any. */
  private storedSend(sender: string, clientMessageId: string): Promise<StoredMessage | null> {
    return this.messages.findOne(byIdempotencyKey(sender, clientMessageId));
  }

  /** The answer to a retry; its message is announced first if that has not happened yet. */
  private async retried(earlier: StoredMessage, requestDigest: string): Promise<SendResult> {
    if (earlier.requestDigest !== requestDigest)
      throw conflict('client_message_id was already used for a different message');
    if (earlier.unannounced) await this.announcer.announce(earlier);
    return { message: earlier, duplicate: true };
  }

  /** Refuses what the sender may not post; answers whether the message is withheld from its recipient. */
  private async checkMayPost(sender: string, target: Target): Promise<boolean> {
    if (target.type === 'channel') {
      const member = await this.conversations.member(target.conversationId, sender);
      if (member?.role !== 'owner' && member?.role !== 'admin')
        throw permissionDenied('Only the owner and admins post in a channel');
      return false;
    }
    if (target.type !== 'direct' || target.peer === sender) return false;
    if (await this.blocks.isBlocked(sender, target.peer))
      throw permissionDenied('You have blocked this user; unblock to send');
    return this.blocks.isBlocked(target.peer, sender);
  }
}

/** A send's idempotency key: 1 to 64 characters from A-Z, a-z, 0-9, _ and - (400 otherwise). */
export function requireClientMessageId(clientMessageId: string): void {
  if (!CLIENT_MESSAGE_ID.test(clientMessageId))
    throw invalidArgument(
      'client_message_id must be 1 to 64 characters from A-Z, a-z, 0-9, _ and -',
    );
}

/** Fields of a new message that differ from the defaults. */
type MessageFields = Partial<StoredMessage> & Pick<StoredMessage, 'senderAddress' | 'kind'>;

/** A new message of the conversation with its number and expiry: the given fields over the defaults. */
function newMessage(
  target: Target,
  sequence: number,
  timerSeconds: number,
  viewOnce: boolean,
  fields: MessageFields,
): StoredMessage {
  const sentAt = new Date();
  return {
    _id: fields._id ?? newMessageId(),
    conversationId: target.conversationId,
    sequence,
    recipientAddress: target.peer,
    groupId: target.groupId,
    channelId: target.channelId,
    mediaId: '',
    mediaSize: 0,
    mediaSha256: '',
    mediaContentType: '',
    durationMs: 0,
    stickerId: '',
    pollId: '',
    sentAt,
    ...expiryOf(sentAt, timerSeconds, viewOnce),
    viewOnce,
    viewedAt: null,
    status: 'sent',
    withheld: false,
    systemEvent: '',
    systemData: null,
    unannounced: true,
    ...fields,
  };
}

function expiryOf(sentAt: Date, timerSeconds: number, viewOnce: boolean): { expiresAt?: Date } {
  const lifetimes = [
    timerSeconds > 0 ? timerSeconds * 1000 : Infinity,
    viewOnce ? VIEW_ONCE_LIFETIME_MS : Infinity,
  ];
  const lifetime = Math.min(...lifetimes);
  return Number.isFinite(lifetime) ? { expiresAt: new Date(sentAt.getTime() + lifetime) } : {};
}

function digestOf(target: Target, request: SendRequest): string {
  const fields = JSON.stringify([
    target.conversationId,
    request.kind,
    request.mediaId,
    request.durationMs,
    request.viewOnce,
    ...(request.stickerId ? [request.stickerId] : []),
    ...(request.pollId ? [{ poll: request.pollId }] : []),
    // Only when given, so that the digests of earlier messages' retries stay the same.
    ...(request.replyToMessageId ? [{ replyTo: request.replyToMessageId }] : []),
    ...(request.mentions?.length ? [{ mentions: request.mentions }] : []),
    ...(request.frankingCommitment?.length
      ? [{ franking: Buffer.from(request.frankingCommitment).toString('hex') }]
      : []),
  ]);
  return createHash('sha256').update(fields).update(request.ciphertext).digest('base64url');
}

const newMessageId = () => randomId(16);
