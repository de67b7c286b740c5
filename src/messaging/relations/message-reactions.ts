/**
 * ReactToMessage and RemoveReaction. The target is checked by the one relation path; then the
 * conversation decides the form (the lead's decision, messages.proto): in direct chats and
 * groups an encrypted record per (reactor, message) the server cannot read
 * (encrypted-reactions.ts), told to the readers as a durable `message.reaction`; in channels a
 * plaintext emoji key that the channels area counts on the post (`ChannelConversations.react`),
 * so that a post's counts are one read whatever the number of readers.
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { TargetFields } from '../conversations/conversations.js';
import type { EncryptedReactions } from '../messages/encrypted-reactions.js';
import type { RelationEvents } from './relation-events.js';
import {
  MAX_REACTION_CIPHERTEXT_BYTES,
  MAX_REACTION_KEY_BYTES,
  checkActionable,
  isReactionKey,
} from './relation-rules.js';
import type { RelationTargets } from './relation-targets.js';
import type { RelationViews } from './relation-views.js';

export interface ReactionChange {
  /** Direct chats and groups: the new encrypted reaction; empty to remove. */
  readonly ciphertext: Uint8Array;
  /** Channels: the key to add or remove. */
  readonly key: string;
  readonly remove: boolean;
}

export class MessageReactions {
  constructor(
    private readonly targets: RelationTargets,
    private readonly reactions: EncryptedReactions,
    private readonly channels: ChannelConversations,
    private readonly events: RelationEvents,
    private readonly views: RelationViews,
  ) {}

  async change(
    caller: string,
    fields: TargetFields,
    messageId: string,
    change: ReactionChange,
  ): Promise<Message> {
    const target = await this.targets.resolve(caller, fields, messageId);
    if (target.kind === 'channel') {
      if (change.ciphertext.length > 0)
        throw invalidArgument('ciphertext is not for channels: give key');
      if (!isReactionKey(change.key))
        throw invalidArgument(`key must be one emoji of at most ${MAX_REACTION_KEY_BYTES} bytes`);
      if (!change.remove) checkActionable(target.relation, 'react to');
      return this.channels.react(caller, target.channelId, messageId, change.key, !change.remove);
    }
    if (change.key !== '') throw invalidArgument('key is for channels: give ciphertext');
    if (!change.remove) {
      const size = change.ciphertext.length;
      if (size === 0 || size > MAX_REACTION_CIPHERTEXT_BYTES)
        throw invalidArgument(`ciphertext must have 1 to ${MAX_REACTION_CIPHERTEXT_BYTES} bytes`);
      checkActionable(target.relation, 'react to');
    }
    const { message } = target;
    const now = new Date();
    const reaction = change.remove
      ? null
      : await this.reactions.set(
          { messageId: message._id, conversationId: message.conversationId },
          caller,
          change.ciphertext,
          now,
        );
    const removed = change.remove && (await this.reactions.remove(message._id, caller));
    if (reaction || removed)
      await this.events.tell('message.reaction', message, {
        conversation_id: message.conversationId,
        message_id: message._id,
        reactor_address: caller,
        ciphertext: reaction ? Buffer.from(reaction.ciphertext.buffer).toString('base64') : null,
        reacted_at: now.toISOString(),
        removed: reaction === null,
      });
    return this.views.view(message, caller);
  }
}
