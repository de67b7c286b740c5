/**
 * Messaging as the signed-in account: sends are encrypted through the `MessageCipher` and are
 * idempotent (one `client_message_id` per message, the same ciphertext on every retry, so a
 * retry after a lost answer never makes a second message); received messages are opened through
 * it once and remembered in the `PlaintextStore`; history is read page by page after a cursor.
 */
import type { Message } from '../gen/service/v1/messages_pb.js';
import {
  EditMessageRequestSchema,
  EditMessageResponseSchema,
  ListMessagesRequestSchema,
  ListMessagesResponseSchema,
  MarkAsReadRequestSchema,
  MarkAsReadResponseSchema,
  ReactToMessageRequestSchema,
  ReactToMessageResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  SendTypingRequestSchema,
  SendTypingResponseSchema,
} from '../gen/service/v1/messages_pb.js';
import { GetGroupRequestSchema, GetGroupResponseSchema } from '../gen/service/v1/groups_pb.js';
import type { MessageCipher } from '../message-cipher.js';
import { decryptAttachment, encryptAttachment } from '../media/attachment-encryption.js';
import type { AttachmentKey } from '../media/attachment-encryption.js';
import { downloadMedia, uploadMedia } from '../media/uploads.js';
import { rpc } from '../rpc.js';
import type { AuthorizedSession } from '../session/authorized-session.js';
import type { Conversation } from './conversation.js';
import { targetOf } from './conversation.js';
import { decodeContent, encodeContent } from './message-content.js';
import type { MessageContent } from './message-content.js';
import { memoryPlaintextStore } from './plaintext-store.js';
import type { PlaintextStore } from './plaintext-store.js';
import { withRetry } from './retry.js';

/** A message with what it says; `content` null for protocol-only or unreadable messages. */
export interface OpenedMessage {
  readonly message: Message;
  readonly content: MessageContent | null;
  /** Why it could not be opened, when it could not. */
  readonly error?: string;
}

export interface HistoryPage {
  readonly messages: OpenedMessage[];
  /** Pass back to read what arrived later. */
  readonly afterCursor: string;
}

export class Messenger {
  private readonly groupMembers = new Map<string, Promise<string[]>>();
  private readonly opening = new Map<string, Promise<OpenedMessage>>();

  constructor(
    private readonly session: AuthorizedSession,
    private readonly cipher: MessageCipher,
    /** The signed-in wallet (lowercase). */
    private readonly self: string,
    private readonly plaintexts: PlaintextStore = memoryPlaintextStore(),
  ) {}

  /** Sends `content`; resolves with the stored message (the same one however many retries). */
  async send(
    conversation: Conversation,
    content: MessageContent,
    options: { readonly mediaId?: string; readonly replyTo?: string } = {},
  ): Promise<OpenedMessage> {
    const ciphertext = await this.encrypt(conversation, encodeContent(content));
    const request = {
      schema: SendMessageRequestSchema,
      init: {
        clientMessageId: crypto.randomUUID(),
        ...('peer' in conversation
          ? { recipientAddress: conversation.peer }
          : { groupId: conversation.groupId }),
        kind: content.type === 'image' ? 'image' : 'text',
        ciphertext,
        mediaId: options.mediaId ?? '',
        replyToMessageId: options.replyTo ?? '',
      },
    };
    const sent = await withRetry(() =>
      rpc(this.session, 'POST', '/send', request, SendMessageResponseSchema),
    );
    const message = sent.chatMessage!;
    await this.plaintexts.put(message.id, content);
    return { message, content };
  }

  sendText(conversation: Conversation, text: string): Promise<OpenedMessage> {
    return this.send(conversation, { type: 'text', text });
  }

  /** Encrypts the image with a fresh key, uploads it streamed, and sends the key inside the message. */
  async sendImage(
    conversation: Conversation,
    image: Uint8Array,
    contentType: string,
    caption = '',
  ): Promise<OpenedMessage> {
    const { ciphertext, key } = await encryptAttachment(image, contentType);
    const upload = await withRetry(() =>
      uploadMedia(this.session, ciphertext, { kind: 'image', sha256: key.sha256 }),
    );
    return this.send(
      conversation,
      { type: 'image', caption, attachment: key },
      {
        mediaId: upload.mediaId,
      },
    );
  }

  /** Downloads and opens an image attachment. */
  async openImage(mediaId: string, attachment: AttachmentKey): Promise<Uint8Array> {
    return decryptAttachment(await downloadMedia(this.session, mediaId), attachment);
  }

  /** Replaces the content of one of the caller's messages (the server learns only that it was edited). */
  async edit(
    conversation: Conversation,
    messageId: string,
    content: MessageContent,
  ): Promise<void> {
    const ciphertext = await this.encrypt(conversation, encodeContent(content));
    await rpc(
      this.session,
      'POST',
      '/messages/edit',
      {
        schema: EditMessageRequestSchema,
        init: { ...targetOf(conversation), messageId, ciphertext },
      },
      EditMessageResponseSchema,
    );
    await this.plaintexts.put(messageId, content);
  }

  /** Reacts with an emoji, encrypted like a message (the server learns who reacted, not with what). */
  async react(conversation: Conversation, messageId: string, emoji: string): Promise<void> {
    const ciphertext = await this.encrypt(conversation, encodeContent({ type: 'reaction', emoji }));
    await rpc(
      this.session,
      'POST',
      '/messages/react',
      {
        schema: ReactToMessageRequestSchema,
        init: { ...targetOf(conversation), messageId, ciphertext },
      },
      ReactToMessageResponseSchema,
    );
  }

  /** Tells the other side the caller is typing (`typing`) or stopped (`paused`). */
  async typing(conversation: Conversation, state: 'typing' | 'paused'): Promise<void> {
    await rpc(
      this.session,
      'POST',
      '/typing',
      { schema: SendTypingRequestSchema, init: { ...targetOf(conversation), state } },
      SendTypingResponseSchema,
    );
  }

  /** Moves the caller's read marker to `upToMessageId`. */
  async markRead(conversation: Conversation, upToMessageId: string): Promise<void> {
    await rpc(
      this.session,
      'POST',
      '/mark-as-read',
      { schema: MarkAsReadRequestSchema, init: { ...targetOf(conversation), upToMessageId } },
      MarkAsReadResponseSchema,
    );
  }

  /**
   * The history after `afterCursor` (all of it without one, newest page first read backwards is
   * left to the application), every page until caught up, opened.
   */
  async history(conversation: Conversation, afterCursor = ''): Promise<HistoryPage> {
    const messages: OpenedMessage[] = [];
    let cursor = afterCursor;
    for (;;) {
      const page = await rpc(
        this.session,
        'GET',
        '/messages',
        {
          schema: ListMessagesRequestSchema,
          init: { ...targetOf(conversation), afterCursor: cursor, pageSize: 200 },
        },
        ListMessagesResponseSchema,
      );
      for (const message of page.messages) messages.push(await this.open(message));
      cursor = page.afterCursor;
      if (!page.hasMoreAfter) return { messages, afterCursor: cursor };
    }
  }

  /**
   * What `message` says: remembered if it was opened before, else decrypted once and remembered.
   * `fresh` decrypts even so: an edit (`message.edited`) keeps the id with a new ciphertext.
   * A message is never decrypted twice at once (a live event and a history page may bring the
   * same one, and a message key opens only once). The account's own messages are never
   * decrypted (the sender cannot open what it encrypted for others): their content is what
   * `send` remembered. A group message that arrives before its sender's key distribution is
   * opened again once the sender's direct messages (where the distribution is) were read.
   */
  open(message: Message, options: { readonly fresh?: boolean } = {}): Promise<OpenedMessage> {
    if (options.fresh) return this.decryptAndRemember(message);
    let opening = this.opening.get(message.id);
    if (!opening) {
      opening = this.openOnce(message).finally(() => this.opening.delete(message.id));
      this.opening.set(message.id, opening);
    }
    return opening;
  }

  private async openOnce(message: Message): Promise<OpenedMessage> {
    const known = await this.plaintexts.get(message.id);
    if (known !== undefined) return { message, content: known };
    return this.decryptAndRemember(message);
  }

  private async decryptAndRemember(message: Message): Promise<OpenedMessage> {
    if (message.ciphertext.length === 0 || message.systemEvent !== '')
      return { message, content: null };
    if (message.senderAddress.toLowerCase() === this.self)
      return { message, content: null, error: 'sent by this account; not kept on this device' };
    try {
      const plaintext = await this.decrypt(message).catch(async (error: unknown) => {
        if (!message.groupId || (error as { code?: unknown }).code !== 'NO_SESSION') throw error;
        await this.history({ peer: message.senderAddress.toLowerCase() });
        return this.decrypt(message);
      });
      const content = plaintext === null ? null : decodeContent(plaintext);
      await this.plaintexts.put(message.id, content);
      return { message, content };
    } catch (error) {
      return { message, content: null, error: String(error) };
    }
  }

  private decrypt(message: Message): Promise<Uint8Array | null> {
    return message.groupId
      ? this.cipher.decryptGroup(message.groupId, message.senderAddress, message.ciphertext)
      : this.cipher.decryptDirect(message.senderAddress, message.ciphertext);
  }

  /** Opens an encrypted reaction of `reactor` on a message of `conversation`. */
  async openReaction(
    conversation: Conversation,
    reactor: string,
    ciphertext: Uint8Array,
  ): Promise<string | undefined> {
    const plaintext =
      'peer' in conversation
        ? await this.cipher.decryptDirect(reactor, ciphertext)
        : await this.cipher.decryptGroup(conversation.groupId, reactor, ciphertext);
    if (plaintext === null) return undefined;
    const content = decodeContent(plaintext);
    return content.type === 'reaction' ? content.emoji : undefined;
  }

  private async encrypt(conversation: Conversation, plaintext: Uint8Array): Promise<Uint8Array> {
    if ('peer' in conversation) return this.cipher.encryptDirect(conversation.peer, plaintext);
    const members = await this.membersOf(conversation.groupId);
    return this.cipher.encryptGroup(conversation.groupId, members, plaintext);
  }

  /** The other members of a group (for its sender key), read once per group. */
  private membersOf(groupId: string): Promise<string[]> {
    let members = this.groupMembers.get(groupId);
    if (!members) {
      members = rpc(
        this.session,
        'GET',
        `/groups/${encodeURIComponent(groupId)}`,
        { schema: GetGroupRequestSchema, init: {} },
        GetGroupResponseSchema,
      ).then((group) =>
        group.members
          .map((member) => member.address.toLowerCase())
          .filter((address) => address !== this.self),
      );
      this.groupMembers.set(groupId, members);
      members.catch(() => this.groupMembers.delete(groupId));
    }
    return members;
  }

  /** Forgets a group's member list (after a membership change). */
  forgetMembers(groupId: string): void {
    this.groupMembers.delete(groupId);
  }
}
