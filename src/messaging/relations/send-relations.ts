/**
 * What a new message says about other messages and members, checked before it is numbered:
 * `reply_to_message_id` (a message of the same conversation the sender can read; a deleted
 * one is fine) and `mentions` (groups only here: members' addresses, `@everyone` for owners
 * and admins; channel posts are checked by the channels area with the same rules). Answers the
 * fields the stored message records.
 */
import { invalidArgument, notFound, permissionDenied } from '../../platform/errors/api-error.js';
import type { Conversations, Target } from '../conversations/conversations.js';
import { EVERYONE, parseMentions } from '../messages/mentions.js';
import type { SendRelationCheck } from '../messages/message-sender.js';
import type { RelationTargets } from './relation-targets.js';

export class SendRelations implements SendRelationCheck {
  constructor(
    private readonly targets: RelationTargets,
    private readonly conversations: Conversations,
  ) {}

  async check(
    sender: string,
    target: Target,
    request: { replyToMessageId?: string; mentions?: readonly string[] },
  ): Promise<{ replyToMessageId?: string; mentions?: string[] }> {
    const fields: { replyToMessageId?: string; mentions?: string[] } = {};
    const replyTo = request.replyToMessageId ?? '';
    if (replyTo !== '') {
      if (!(await this.targets.readable(sender, target, replyTo)))
        throw notFound('reply_to_message_id: no such message in this conversation');
      fields.replyToMessageId = replyTo;
    }
    const mentions = parseMentions(request.mentions ?? []);
    if (mentions.length === 0) return fields;
    if (target.type !== 'group') throw invalidArgument('mentions are for groups and channels');
    for (const mention of mentions) await this.checkMention(sender, target, mention);
    fields.mentions = mentions;
    return fields;
  }

  private async checkMention(sender: string, target: Target, mention: string): Promise<void> {
    if (mention === EVERYONE) {
      const role = (await this.conversations.member(target.conversationId, sender))?.role;
      if (role !== 'owner' && role !== 'admin')
        throw permissionDenied('Only owners and admins may mention @everyone');
      return;
    }
    if (!(await this.conversations.member(target.conversationId, mention)))
      throw notFound(`mentions: ${mention} is not a member`);
  }
}
