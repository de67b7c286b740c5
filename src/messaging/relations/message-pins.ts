/**
 * PinMessage, UnpinMessage and ListPinnedMessages over one pins table (pins.ts) for every
 * conversation, the permission by relation-rules.ts `checkMayPin`. Readers of a direct chat or
 * group are told by a durable `message.pinned` / `message.unpinned`; a channel's connected
 * followers by a `channel.post_updated` frame (through the channels area).
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { Conversations, TargetFields } from '../conversations/conversations.js';
import type { Collection } from '../../platform/store/document-store.js';
import type { StoredMessage } from '../messages/stored-message.js';
import { visibleTo } from '../messages/visibility.js';
import type { Pins } from './pins.js';
import type { RelationEvents } from './relation-events.js';
import { checkActionable, checkMayPin } from './relation-rules.js';
import { onlyChannel } from './relation-targets.js';
import type { RelationTargets } from './relation-targets.js';
import type { RelationViews } from './relation-views.js';

export interface MessagePinsDependencies {
  readonly targets: RelationTargets;
  readonly pins: Pins;
  readonly messages: Collection<StoredMessage>;
  readonly conversations: Conversations;
  readonly channels: ChannelConversations;
  readonly events: RelationEvents;
  readonly views: RelationViews;
}

export class MessagePins {
  constructor(private readonly deps: MessagePinsDependencies) {}

  async pin(caller: string, fields: TargetFields, messageId: string): Promise<Message> {
    return this.change(caller, fields, messageId, true);
  }

  async unpin(caller: string, fields: TargetFields, messageId: string): Promise<Message> {
    return this.change(caller, fields, messageId, false);
  }

  /** The conversation's pinned messages the caller can read, oldest pin first. */
  async list(caller: string, fields: TargetFields): Promise<Message[]> {
    const { deps } = this;
    if (onlyChannel(fields)) {
      const conversationId = `channel:${fields.channelId}`;
      // The port checks the caller may read the channel (404 otherwise) before anything is shown.
      await deps.channels.postsFor(caller, fields.channelId!, []);
      const pins = await deps.pins.list(conversationId);
      const posts = await deps.channels.postsFor(
        caller,
        fields.channelId!,
        pins.map((pin) => pin.messageId),
      );
      for (const post of posts) post.pinned = true;
      return posts.filter((post) => post.deletedAt === '');
    }
    const conversation = await deps.conversations.resolve(caller, fields);
    const pins = await deps.pins.list(conversation.conversationId);
    const stored = await deps.messages.find({
      _id: { $in: pins.map((pin) => pin.messageId) },
      conversationId: conversation.conversationId,
      deletedAt: { $exists: false },
      sequence: { $gte: conversation.historyFrom ?? 0 },
      ...visibleTo(caller, new Date()),
    });
    const byId = new Map(stored.map((message) => [message._id, message]));
    const ordered = pins.flatMap((pin) => byId.get(pin.messageId) ?? []);
    return deps.views.views(ordered, caller);
  }

  private async change(
    caller: string,
    fields: TargetFields,
    messageId: string,
    pinned: boolean,
  ): Promise<Message> {
    const { deps } = this;
    const target = await deps.targets.resolve(caller, fields, messageId);
    checkMayPin(target.relation);
    if (pinned) checkActionable(target.relation, 'pin');
    const { conversationId } = target.relation;
    const now = new Date();
    const changed = pinned
      ? (await deps.pins.pin(conversationId, messageId, caller, now)).added
      : await deps.pins.unpin(conversationId, messageId);
    if (target.kind === 'channel') {
      const [post] = await deps.channels.postsFor(caller, target.channelId, [messageId]);
      post!.pinned = pinned;
      if (changed)
        await deps.channels.announceChange(target.channelId, post!, pinned ? 'pinned' : 'unpinned');
      return post!;
    }
    if (changed)
      await deps.events.tell(pinned ? 'message.pinned' : 'message.unpinned', target.message, {
        conversation_id: conversationId,
        message_id: messageId,
        actor_address: caller,
        at: now.toISOString(),
      });
    return deps.views.view(target.message, caller);
  }
}
