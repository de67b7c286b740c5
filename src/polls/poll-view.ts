/** A stored poll with its tally as the caller sees it: the `Poll` message of polls.proto. */
import { create } from '@bufbuild/protobuf';
import { PollSchema } from '../gen/service/v1/polls_pb.js';
import type { Poll } from '../gen/service/v1/polls_pb.js';
import type { StoredPoll } from './poll.js';
import { isExpired } from './poll-rules.js';
import type { PollTally } from './poll-votes.js';

export function pollView(poll: StoredPoll, tally: PollTally): Poll {
  return create(PollSchema, {
    id: poll._id,
    question: poll.question,
    allowsMultiple: poll.allowsMultiple,
    createdAt: poll.createdAt.toISOString(),
    creatorAddress: poll.creatorAddress,
    expiresAt: poll.expiresAt?.toISOString() ?? '',
    isExpired: isExpired(poll.expiresAt),
    hasVoted: tally.chosen.size > 0,
    totalVotes: tally.voters,
    options: poll.options.map((option) => ({
      id: option.id,
      pollId: poll._id,
      text: option.text,
      voteCount: tally.countByOption.get(option.id) ?? 0,
      hasVoted: tally.chosen.has(option.id),
    })),
  });
}

/** The `poll.updated` event's data: the results everyone sees (each reads its own choice with GetPoll). */
export function pollResults(poll: StoredPoll, tally: PollTally) {
  return {
    poll_id: poll._id,
    total_votes: tally.voters,
    is_expired: isExpired(poll.expiresAt),
    options: poll.options.map((option) => ({
      id: option.id,
      vote_count: tally.countByOption.get(option.id) ?? 0,
    })),
  };
}
