/** Who hears of a message: the users whose event streams get its `message.new`. */
import type { Conversations } from '../conversations/conversations.js';
import type { StoredMessage } from './stored-message.js';

/**
 * Both participants of a direct chat (the sender alone when the message is withheld by a
 * block, see BlockList), every member of a group or channel.
 */
export async function audienceOf(conversations: Conversations, message: StoredMessage): Promise<string[]> {
  if (message.groupId === '' && message.channelId === '') {
    const participants = message.conversationId.split(':').slice(1);
    return message.withheld ? [message.senderAddress] : [...new Set(participants)];
  }
  return conversations.memberAddresses(message.conversationId);
}
