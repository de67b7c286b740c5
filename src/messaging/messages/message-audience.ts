/** Who hears of a message: the users whose event streams get its `message.new`. */
import type { Conversations } from '../conversations/conversations.js';
import type { StoredMessage } from './stored-message.js';

/** The system messages that also go to the member they are about, who is no longer a member. */
const DEPARTURES = new Set(['member_left', 'member_removed']);

/**
 * Both participants of a direct chat (the sender alone when the message is withheld by a
 * block, see BlockList), every member of a group or channel; a group's departure message also
 * reaches the departed member, so that its devices learn of it.
 */
export async function audienceOf(
  conversations: Conversations,
  message: StoredMessage,
): Promise<string[]> {
  if (message.groupId === '' && message.channelId === '') {
    const participants = message.conversationId.split(':').slice(1);
    return message.withheld ? [message.senderAddress] : [...new Set(participants)];
  }
  const members = await conversations.memberAddresses(message.conversationId);
  const departed = message.systemData?.['member_address'];
  return DEPARTURES.has(message.systemEvent) && typeof departed === 'string'
    ? [...new Set([...members, departed])]
    : members;
}
