/**
 * Casting or changing a vote, then telling the poll's participants the new results over /ws
 * (`poll.updated`, ephemeral: a client that was away re-reads the poll). The participants are
 * the creator, the recipient of a direct poll and everyone who has voted; a channel poll's other
 * readers see the results when they open it (channel topics carry numbered posts only, so a
 * result update cannot ride on them without taking a post number).
 */
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { MessagingEvents } from '../realtime/events/messaging-events.js';
import type { StoredPoll } from './poll.js';
import { checkedChoice, isExpired } from './poll-rules.js';
import type { PollTally, PollVotes } from './poll-votes.js';
import { pollResults } from './poll-view.js';

export class PollVoting {
  constructor(
    private readonly votes: PollVotes,
    private readonly events: MessagingEvents,
  ) {}

  /** The caller's new choice replaces its earlier one; answers the poll's tally as the caller sees it. */
  async vote(poll: StoredPoll, voter: string, optionIds: readonly string[]): Promise<PollTally> {
    const chosen = checkedChoice(optionIds, poll.allowsMultiple);
    const known = new Set(poll.options.map((option) => option.id));
    if (chosen.some((id) => !known.has(id))) throw notFound('No such option in this poll');
    if (isExpired(poll.expiresAt)) throw invalidArgument('This poll has expired', 'POLL_EXPIRED');
    await this.votes.cast(poll._id, voter, chosen);
    const tally = await this.votes.tally(poll._id, voter);
    const participants = [poll.creatorAddress, poll.recipientAddress, ...(await this.votes.votersOf(poll._id))].filter((address) => address !== '');
    await this.events.ephemeral('poll.updated', participants, pollResults(poll, tally));
    return tally;
  }
}
