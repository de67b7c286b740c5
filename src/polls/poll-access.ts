/**
 * Who may see a poll and vote on it: its creator; the recipient of a direct poll (unless it was
 * withheld: the recipient had blocked the creator); for a channel
 * poll, whoever may read the channel (channels' `ChannelAccess`: any user for a public channel,
 * those with a role for a private one). Anyone else is told the poll does not exist (404), so
 * an id reveals nothing.
 */
import type { ChannelAccess } from '../channels/channel-access.js';
import { notFound } from '../platform/errors/api-error.js';
import type { PollRepository, StoredPoll } from './poll.js';

export class PollAccess {
  constructor(
    private readonly polls: PollRepository,
    private readonly channels: ChannelAccess,
  ) {}

  /** The poll, when `address` may see it; 404 otherwise. */
  async visible(pollId: string, address: string): Promise<StoredPoll> {
    const poll = await this.polls.find(pollId);
    if (!poll || !(await this.maySee(poll, address))) throw notFound('No such poll');
    return poll;
  }

  /** A channel whose polls `address` may list; 404 when unknown or invisible to it. */
  async requireReadableChannel(channelId: string, address: string): Promise<void> {
    if (!(await this.channels.mayRead(channelId, address))) throw notFound('No such channel');
  }

  private async maySee(poll: StoredPoll, address: string): Promise<boolean> {
    if (poll.creatorAddress === address || (poll.recipientAddress === address && !poll.withheld))
      return true;
    return poll.channelId !== '' && this.channels.mayRead(poll.channelId, address);
  }
}
