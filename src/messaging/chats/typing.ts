/**
 * Typing indicators: an ephemeral `typing` event to the chat's other members. In a direct chat
 * a peer who has blocked the typist is not told; nothing is stored.
 */
import type { BlockList } from '../../contacts/block-list.js';
import type { MessagingEvents } from '../../events/messaging-events.js';
import type { Conversations, Target } from '../conversations/conversations.js';

export type TypingState = 'typing' | 'paused';

export class Typing {
  constructor(
    private readonly conversations: Conversations,
    private readonly blocks: BlockList,
    private readonly events: MessagingEvents,
  ) {}

  /** Returns how many users were told. */
  async tell(typist: string, target: Target, state: TypingState): Promise<number> {
    const recipients =
      target.type === 'direct'
        ? target.peer === typist || (await this.blocks.isBlocked(target.peer, typist))
          ? []
          : [target.peer]
        : (await this.conversations.memberAddresses(target.conversationId)).filter(
            (address) => address !== typist,
          );
    await this.events.ephemeral('typing', recipients, {
      conversation_id: target.conversationId,
      from_address: typist,
      group_id: target.groupId,
      state,
    });
    return recipients.length;
  }
}
