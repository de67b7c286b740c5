/**
 * A conversation's disappearing-messages timer: in a group only its owner and admins change it;
 * every change is announced in the conversation by a system message.
 */
import { invalidArgument, permissionDenied } from '../../platform/errors/api-error.js';
import type { Conversations, TargetFields } from '../conversations/conversations.js';
import type { MessageSender } from '../messages/message-sender.js';

const MIN_TIMER_SECONDS = 5;
const MAX_TIMER_SECONDS = 604_800;

export class DisappearingTimer {
  constructor(
    private readonly conversations: Conversations,
    private readonly sender: MessageSender,
  ) {}

  /** `seconds` 0 turns it off. Returns the conversation and when the change was recorded. */
  async set(
    caller: string,
    fields: TargetFields,
    seconds: number,
  ): Promise<{ conversationId: string; updatedAt: Date }> {
    if (seconds !== 0 && (seconds < MIN_TIMER_SECONDS || seconds > MAX_TIMER_SECONDS)) {
      throw invalidArgument(
        `disappearing_timer_seconds must be 0 or between ${MIN_TIMER_SECONDS} and ${MAX_TIMER_SECONDS}`,
      );
    }
    const target = await this.conversations.resolve(caller, fields);
    if (target.type === 'group') {
      const role = (await this.conversations.member(target.conversationId, caller))?.role;
      if (role !== 'owner' && role !== 'admin')
        throw permissionDenied('Only the owner and admins change the timer');
    }
    await this.conversations.setTimer(target, seconds);
    const notice = await this.sender.appendSystem(target, 'disappearing_timer_changed', {
      actor_address: caller,
      disappearing_timer_seconds: seconds,
    });
    return { conversationId: target.conversationId, updatedAt: notice.sentAt };
  }
}
