/**
 * Who may see a poll and vote on it: its creator, and the readers of any conversation it was
 * sent to, asked at each request: the recipient of a direct chat (unless it was withheld there:
 * the recipient had blocked the creator); a group's members who read the poll message (members
 * now, who joined before it was sent: messaging's member records); whoever may read a channel
 * it is in (channels' `ChannelAccess`: any user for a public channel, those with a role for a
 * private one). Anyone else is told the poll does not exist (404), so an id reveals nothing.
 */
import type { ChannelAccess } from '../channels/channel-access.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import { notFound } from '../platform/errors/api-error.js';
import type { PollPlace, PollRepository, StoredPoll } from './poll.js';

/** Messaging's member records as polls ask them: is this user in the group, since when? */
export type GroupMembers = Pick<Conversations, 'member'>;

export class PollAccess {
  constructor(
    private readonly polls: PollRepository,
    private readonly channels: ChannelAccess,
    private readonly groups: GroupMembers,
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
    if (poll.creatorAddress === address) return true;
    // The cheap answers first: a direct chat needs no read.
    const places = [...poll.places].sort((a, b) => cost(a) - cost(b));
    for (const place of places) if (await this.reads(place, address)) return true;
    return false;
  }

  private async reads(place: PollPlace, address: string): Promise<boolean> {
    if (place.type === 'direct') return place.peer === address && !place.withheld;
    if (place.type === 'channel') return this.channels.mayRead(place.channelId, address);
    const member = await this.groups.member(place.conversationId, address);
    return member !== null && (member.historyFrom ?? 0) <= place.sequence;
  }
}

const COST: Record<PollPlace['type'], number> = { direct: 0, group: 1, channel: 2 };
const cost = (place: PollPlace) => COST[place.type];
