/**
 * Creating a poll where it lives, delivered as a `poll` message carrying its id: in a channel
 * (the caller must be allowed to publish there; 404 for a channel it cannot see, 403 for one it
 * can only read) as a channel post, numbered by the channel and fanned out to its subscribers
 * like any post; or in the direct chat with one recipient, through messaging's sender
 * (persisted, numbered, in history, announced over /ws; blocks apply as for any message). The
 * poll record is written first, so a message never names a missing poll; when the message is
 * refused the poll is removed again, and when it is withheld (the recipient has blocked the
 * creator) so is the poll.
 */
import type { ChannelAccess } from '../channels/channel-access.js';
import type { ChannelPollPosts } from '../channels/channel-publisher.js';
import { newId } from '../platform/store/new-id.js';
import { notFound, permissionDenied } from '../platform/errors/api-error.js';
import type { PollRepository, StoredPoll } from './poll.js';

/** Messaging's sender as polls use it (MessageSender.appendPoll): was the message withheld from its recipient? */
export interface PollMessages {
  appendPoll(
    sender: string,
    recipientAddress: string,
    pollId: string,
  ): Promise<{ readonly withheld: boolean }>;
}

export interface NewPoll {
  readonly question: string;
  readonly options: string[];
  readonly allowsMultiple: boolean;
  readonly expiresAt: Date | null;
}

export type PollPlace = { readonly channelId: string } | { readonly recipientAddress: string };

export class PollCreation {
  constructor(
    private readonly polls: PollRepository,
    private readonly channels: ChannelAccess,
    private readonly messages: PollMessages,
    private readonly channelPosts: ChannelPollPosts,
  ) {}

  async create(creator: string, fields: NewPoll, place: PollPlace): Promise<StoredPoll> {
    if ('channelId' in place) await this.requireMayPublish(place.channelId, creator);
    const _id = newId();
    const poll: StoredPoll = {
      _id,
      question: fields.question,
      options: fields.options.map((text) => ({ id: newId(), text })),
      allowsMultiple: fields.allowsMultiple,
      createdAt: new Date(),
      creatorAddress: creator,
      expiresAt: fields.expiresAt,
      channelId: 'channelId' in place ? place.channelId : '',
      recipientAddress: 'recipientAddress' in place ? place.recipientAddress : '',
      participants: 'recipientAddress' in place ? [creator, place.recipientAddress] : [creator],
    };
    await this.polls.insert(poll);
    try {
      if ('channelId' in place) await this.channelPosts.publishPoll(place.channelId, creator, _id);
      else if ((await this.messages.appendPoll(creator, place.recipientAddress, _id)).withheld)
        await this.polls.withhold(poll);
    } catch (error) {
      await this.polls.remove(_id);
      throw error;
    }
    return poll;
  }

  private async requireMayPublish(channelId: string, address: string): Promise<void> {
    if (!(await this.channels.mayRead(channelId, address))) throw notFound('No such channel');
    if (!(await this.channels.mayPublish(channelId, address)))
      throw permissionDenied('Only the owner and admins may post a poll in a channel');
  }
}
