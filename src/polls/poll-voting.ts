/**
 * Casting or changing a vote, then telling the poll's audience the new results over /ws
 * (`poll.updated`, ephemeral: a client that was away re-reads the poll). A direct poll's
 * results go to its creator and recipient as user events; a channel poll's go once on the
 * channel's topic (ChannelPostStream.publishEphemeral), heard by every ws pod with a follower
 * of the channel and handed to each follower connected there: no event per subscriber. A
 * public channel's readers who do not follow it see the results when they open the poll. The
 * vote is the record: a failed publish is logged, not thrown.
 */
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { Logger } from '../platform/logging/logger.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { StoredPoll } from './poll.js';
import { checkedChoice, isExpired } from './poll-rules.js';
import type { PollTally, PollVotes } from './poll-votes.js';
import { pollResults } from './poll-view.js';

/** The channel topics as polls use them. */
export type ChannelEvents = Pick<ChannelPostStream, 'publishEphemeral'>;

export class PollVoting {
  constructor(
    private readonly votes: PollVotes,
    private readonly events: MessagingEvents,
    private readonly channelEvents: ChannelEvents,
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
    if (poll.channelId === '')
      return this.events.ephemeral('poll.updated', poll.participants, results);
    try {
      await this.channelEvents.publishEphemeral(poll.channelId, 'poll.updated', results);
    } catch (error) {
      this.logger.warn(
        { err: error, pollId: poll._id },
        'poll results not published; readers re-read the poll',
      );
    }
  }
}
