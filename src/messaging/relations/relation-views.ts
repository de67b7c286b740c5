/**
 * Messages of direct chats and groups as their readers see them with their relations: the
 * encrypted reactions and the pinned flag (one read each for a whole history page), and the
 * viewer's stars. Used by history, the pins list, the relation RPCs' answers and their events.
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';
import { messageView } from '../messages/message-view.js';
import type { Stars } from '../messages/stars.js';
import type { StoredMessage } from '../messages/stored-message.js';
import type { EncryptedReactions } from '../messages/encrypted-reactions.js';
import type { Pins } from './pins.js';

export class RelationViews {
  constructor(
    private readonly reactions: EncryptedReactions,
    private readonly pins: Pins,
    private readonly stars: Stars,
  ) {}

  /** The messages (all of one conversation) for `viewer`; without a viewer, no stars. */
  async views(messages: readonly StoredMessage[], viewer?: string): Promise<Message[]> {
    if (messages.length === 0) return [];
    const ids = messages.map((message) => message._id);
    const [reactions, pinned, starred] = await Promise.all([
      this.reactions.of(ids),
      this.pins.pinnedIds(messages[0]!.conversationId),
      viewer === undefined ? new Set<string>() : this.stars.starredAmong(viewer, ids),
    ]);
    return messages.map((message) =>
      messageView(message, {
        starred: starred.has(message._id),
        reactions: reactions.get(message._id) ?? [],
        pinned: pinned.has(message._id),
      }),
    );
  }

  /** Sets `pinned` on messages built elsewhere (a channel's posts, from the channels area). */
  async markPinned(conversationId: string, messages: Message[]): Promise<Message[]> {
    const pinned = await this.pins.pinnedIds(conversationId);
    for (const message of messages)
      message.pinned = pinned.has(message.id) && message.deletedAt === '';
    return messages;
  }

  async view(message: StoredMessage, viewer?: string): Promise<Message> {
    return (await this.views([message], viewer))[0]!;
  }
}
