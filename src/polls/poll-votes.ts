/**
 * Votes: one record per (poll, voter), under the id `<poll id>:<voter>`. Casting or changing a
 * vote replaces that one record in a single store operation (an upsert on its id), so
 * concurrent votes of one user, on one pod or several, leave exactly one vote: the last write.
 * Results are counted from the records when a poll is read: `total_votes` is the number of
 * voters (as Telegram and Matrix count), an option's `vote_count` the voters who chose it.
 */
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';

export interface StoredVote {
  _id: string;
  pollId: string;
  voterAddress: string;
  optionIds: string[];
  votedAt: Date;
}

/** A poll's results: voters per option and in total, and what one caller chose. */
export interface PollTally {
  readonly voters: number;
  readonly countByOption: ReadonlyMap<string, number>;
  /** The caller's options; empty when it has not voted. */
  readonly chosen: ReadonlySet<string>;
}

const VOTES = 'poll_votes';

export const pollVoteIndexes: IndexSpec[] = [
  { collection: VOTES, name: 'poll_votes_by_poll', key: { pollId: 1 } },
  { collection: VOTES, name: 'poll_votes_by_voter', key: { voterAddress: 1 } },
];

const voteId = (pollId: string, voter: string) => `${pollId}:${voter}`;

function tallyOf(
  votes: readonly Pick<StoredVote, 'voterAddress' | 'optionIds'>[],
  caller: string,
): PollTally {
  const countByOption = new Map<string, number>();
  for (const vote of votes)
    for (const option of vote.optionIds)
      countByOption.set(option, (countByOption.get(option) ?? 0) + 1);
  const own = votes.find((vote) => vote.voterAddress === caller);
  return { voters: votes.length, countByOption, chosen: new Set(own?.optionIds ?? []) };
}

export class PollVotes {
  private readonly votes;

  constructor(store: DocumentStore) {
    this.votes = store.collection<StoredVote>(VOTES);
  }

  /** Casts or replaces the voter's choice in one operation. */
  async cast(pollId: string, voter: string, optionIds: string[]): Promise<void> {
    const replace = () =>
      this.votes.updateOne(
        { _id: voteId(pollId, voter) },
        { $set: { pollId, voterAddress: voter, optionIds, votedAt: new Date() } },
        { upsert: true },
      );
    try {
      await replace();
    } catch (error) {
      // Two first votes racing on MongoDB: the loser's upsert meets the winner's insert; as an
      // update it now replaces the record.
      if (!(error instanceof DuplicateKeyError)) throw error;
      await replace();
    }
  }

  async tally(pollId: string, caller: string): Promise<PollTally> {
    return (await this.tallies([pollId], caller)).get(pollId)!;
  }

  /** The tallies of several polls (a page of a list) in one read. */
  async tallies(pollIds: readonly string[], caller: string): Promise<Map<string, PollTally>> {
    const votes =
      pollIds.length === 0
        ? []
        : await this.votes.find(
            { pollId: { $in: [...pollIds] } },
            { projection: { pollId: 1, voterAddress: 1, optionIds: 1 } },
          );
    return new Map(
      pollIds.map((pollId) => [
        pollId,
        tallyOf(
          votes.filter((vote) => vote.pollId === pollId),
          caller,
        ),
      ]),
    );
  }

  async removeOfPolls(pollIds: string[]): Promise<void> {
    if (pollIds.length > 0) await this.votes.deleteMany({ pollId: { $in: pollIds } });
  }

  async removeOfVoter(voter: string): Promise<void> {
    await this.votes.deleteMany({ voterAddress: voter });
  }

  /** Re-keys the votes of `from` to `to`; where `to` already voted on the same poll, its vote is kept. */
  async moveVoter(from: string, to: string): Promise<void> {
    await rekeyDocuments(this.votes, { voterAddress: from }, (vote) => ({
      ...vote,
      _id: voteId(vote.pollId, to),
      voterAddress: to,
    }));
  }
}
