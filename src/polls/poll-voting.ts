/**
 * Casting or changing a vote, then telling the poll's readers the new results over /ws
 * (`poll.updated`, ephemeral: a client that was away re-reads the poll). The users among them
 * (the creator, the recipients of its direct chats, the members of its groups who read the poll
 * message) get one user event each, however many conversations they share the poll in (a
 * reader of a channel it is in as well may hear the same absolute counts twice); each
 * channel it is in gets the results once on its topic (ChannelPostStream.publishEphemeral),
 * heard by every ws pod with a follower of the channel and handed to each follower connected
 * there: no event per subscriber. A public channel's readers who do not follow it see the
 * results when they open the poll. The vote is the record: a failed publish is logged, not
 * thrown.
 */
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { Logger } from '../platform/logging/logger.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { StoredPoll } from './poll.js';
import { checkedChoice, isExpired } from './poll-rules.js';
import type { PollTally, PollVotes } from './poll-votes.js';
import { pollResults } from './poll-view.js';

/** The channel topics as polls use them. */
export type ChannelEvents = Pick<ChannelPostStream, 'publishEphemeral'>;

/** Messaging's member records as the results ask them: who reads a group's message. */
export type GroupReaders = Pick<Conversations, 'readersOf'>;

export class PollVoting {
  constructor(
    private readonly votes: PollVotes,
    private readonly events: MessagingEvents,
    private readonly channelEvents: ChannelEvents,
    private readonly groups: GroupReaders,
    private readonly logger: Logger,
  ) {}

  /** The caller's new choice replaces its earlier one; answers the poll's tally as the caller sees it. */
  async vote(poll: StoredPoll, voter: string, optionIds: readonly string[]): Promise<PollTally> {
    const chosen = checkedChoice(optionIds, poll.allowsMultiple);
    const known = new Set(poll.options.map((option) => option.id));
    if (chosen.some((id) => !known.has(id))) throw notFound('No such option in this poll');
    if (isExpired(poll.expiresAt)) throw invalidArgument('This poll has expired', 'POLL_EXPIRED');
    await this.votes.cast(poll._id, voter, chosen);
    const tally = await this.votes.tally(poll._id, voter);
    await this.announce(poll, tally);
    return tally;
  }

  private async announce(poll: StoredPoll, tally: PollTally): Promise<void> {
    const results = pollResults(poll, tally);
    const channels = poll.places.filter(({ type }) => type === 'channel');
    // The creator of a channel's poll publishes there, so it hears the channel's event.
    const users = new Set(channels.length === 0 ? [poll.creatorAddress] : []);
    for (const place of poll.places) {
      if (place.type === 'direct' && !place.withheld) users.add(place.peer);
      if (place.type === 'group')
        for (const reader of await this.groups.readersOf(place.conversationId, place.sequence))
          users.add(reader);
    }
    if (users.size > 0) await this.events.ephemeral('poll.updated', [...users], results);
    for (const place of channels) {
      try {
        await this.channelEvents.publishEphemeral(place.channelId, 'poll.updated', results);
      } catch (error) {
        this.logger.warn(
          { err: error, pollId: poll._id, channelId: place.channelId },
          'poll results not published; readers re-read the poll',
        );
      }
    }
  }
}
