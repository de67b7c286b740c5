/**
 * Sending a poll into a conversation, the one path for both ways a poll gets there: created
 * with a target (CreatePoll) or sent later by its creator (SendMessage with `poll_id`,
 * messaging's `PollSends` port). In a direct chat or a group it is a `poll` message through
 * messaging's sender (numbered, persisted, in history and replay, announced over /ws, pushed;
 * blocks and membership apply as for any message, and `client_message_id` makes a retry answer
 * the same message); in a channel a `poll` post (the caller must be allowed to publish: 404 for
 * a channel it cannot see, 403 for one it can only read).
 *
 * A poll is in a conversation at most once: a second send there under another idempotency key
 * is refused (409) before anything is written. The place is recorded after the message, with
 * the message's number (a group member who joined later does not read it); a retry of a send
 * that stopped in between records it then. Two sends racing into one conversation under two
 * keys may both be delivered; the place is recorded once and the votes are the poll's anyway.
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import { requireExistingUser } from '../accounts/existing-user.js';
import type { ChannelAccess } from '../channels/channel-access.js';
import type { ChannelPollPosts } from '../channels/channel-publisher.js';
import { directConversationId } from '../messaging/conversations/conversation.js';
import type { MessageSender } from '../messaging/messages/message-sender.js';
import { messageView } from '../messaging/messages/message-view.js';
import type { PollSendRequest, PollSends } from '../messaging/messages/poll-sends-port.js';
import type { Message } from '../gen/service/v1/messages_pb.js';
import {
  conflict,
  invalidArgument,
  notFound,
  permissionDenied,
} from '../platform/errors/api-error.js';
import type { PollPlace, PollRepository, StoredPoll } from './poll.js';
import type { PollAccess } from './poll-access.js';
import { checkedId } from './poll-rules.js';

/** Messaging's sender as polls use it: a `poll` message in a direct chat or a group. */
export type PollMessages = Pick<MessageSender, 'send'>;

/** Where a poll is sent: exactly one conversation. */
export type PollTarget =
  | { readonly recipientAddress: string }
  | { readonly groupId: string }
  | { readonly channelId: string };

export interface SentPoll {
  readonly message: Message;
  readonly duplicate: boolean;
}

export interface PollPlacingParts {
  readonly polls: PollRepository;
  readonly access: PollAccess;
  readonly channels: ChannelAccess;
  readonly channelPosts: ChannelPollPosts;
  readonly messages: PollMessages;
  readonly accounts: AccountRepository;
}

export class PollPlacing implements PollSends {
  constructor(private readonly parts: PollPlacingParts) {}

  /** SendMessage with `poll_id`: the creator sends its poll (404 unseen, 403 someone else's). */
  async send(caller: string, request: PollSendRequest): Promise<SentPoll> {
    const poll = await this.parts.access.visible(checkedId(request.pollId, 'poll_id'), caller);
    if (poll.creatorAddress !== caller)
      throw permissionDenied("Only the poll's creator may send it");
    const target = targetOf(request);
    if (target === null)
      throw invalidArgument('One of recipient_address, group_id and channel_id is required');
    return this.place(caller, poll, target, request.clientMessageId);
  }

  /** Sends `poll` (the creator's) to `target` and records that it is there. */
  private async place(
    creator: string,
    poll: StoredPoll,
    target: PollTarget,
    clientMessageId: string,
  ): Promise<SentPoll> {
    const conversationId = await this.conversationOf(creator, target);
    const earlier = poll.places.find((place) => place.conversationId === conversationId);
    if (earlier && earlier.clientMessageId !== clientMessageId)
      throw conflict('This poll is already in this conversation');
    const { sent, place } =
      'channelId' in target
        ? await this.post(creator, poll._id, target.channelId, clientMessageId)
        : await this.message(creator, poll._id, target, clientMessageId);
    await this.parts.polls.addPlace(poll._id, place);
    return sent;
  }

  private async message(
    creator: string,
    pollId: string,
    target: { recipientAddress: string } | { groupId: string },
    clientMessageId: string,
  ): Promise<{ sent: SentPoll; place: PollPlace }> {
    const { message, duplicate } = await this.parts.messages.send(creator, {
      clientMessageId,
      recipientAddress: 'recipientAddress' in target ? target.recipientAddress : '',
      groupId: 'groupId' in target ? target.groupId : '',
      channelId: '',
      kind: 'poll',
      pollId,
      ciphertext: new Uint8Array(),
      mediaId: '',
      durationMs: 0,
      viewOnce: false,
    });
    const place: PollPlace = {
      conversationId: message.conversationId,
      type: message.groupId === '' ? 'direct' : 'group',
      peer: message.recipientAddress,
      groupId: message.groupId,
      channelId: '',
      sequence: message.sequence,
      clientMessageId,
      withheld: message.withheld,
    };
    return { sent: { message: messageView(message), duplicate }, place };
  }

  private async post(
    creator: string,
    pollId: string,
    channelId: string,
    clientMessageId: string,
  ): Promise<{ sent: SentPoll; place: PollPlace }> {
    const { channels, channelPosts } = this.parts;
    if (!(await channels.mayRead(channelId, creator))) throw notFound('No such channel');
    if (!(await channels.mayPublish(channelId, creator)))
      throw permissionDenied('Only the owner and admins may post a poll in a channel');
    const { post, duplicate } = await channelPosts.publishPoll(channelId, creator, pollId);
    const place: PollPlace = {
      conversationId: post.conversationId,
      type: 'channel',
      peer: '',
      groupId: '',
      channelId,
      sequence: post.sequence,
      clientMessageId,
      withheld: false,
    };
    return { sent: { message: post, duplicate }, place };
  }

  /** The conversation `target` names, as messaging and channels number it; its ids checked. */
  private async conversationOf(creator: string, target: PollTarget): Promise<string> {
    if ('channelId' in target) return `channel:${checkedId(target.channelId, 'channel_id')}`;
    if ('groupId' in target) return `group:${checkedId(target.groupId, 'group_id')}`;
    const { accounts } = this.parts;
    const peer = await requireExistingUser(accounts, target.recipientAddress, 'recipient_address');
    if (peer === creator) throw invalidArgument('recipient_address must be another user');
    return directConversationId(creator, peer);
  }
}

/** The conversation a request names: at most one of the three fields; null for none. */
export function targetOf(
  fields: Pick<PollSendRequest, 'recipientAddress' | 'groupId' | 'channelId'>,
): PollTarget | null {
  const { recipientAddress, groupId, channelId } = fields;
  const given = [recipientAddress, groupId, channelId].filter((value) => value !== '');
  if (given.length > 1)
    throw invalidArgument('At most one of recipient_address, group_id and channel_id');
  if (channelId !== '') return { channelId };
  if (groupId !== '') return { groupId };
  return recipientAddress !== '' ? { recipientAddress } : null;
}
