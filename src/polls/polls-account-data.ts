/**
 * Polls' records in an account move or deletion. A move re-keys the polls the account created
 * or received and its votes (where the new address already voted on the same poll, that vote is
 * kept). A deletion removes the account's votes (every poll's counts drop accordingly, since
 * results are counted from the votes) and the polls it created, with their votes; polls it
 * received stay with their creators.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { PollRepository } from './poll.js';
import type { PollVotes } from './poll-votes.js';

export class PollsAccountData implements AccountDataOwner {
  readonly name = 'polls';

  constructor(
    private readonly polls: PollRepository,
    private readonly votes: PollVotes,
  ) {}

  async moveAccount(from: string, to: string): Promise<void> {
    await this.polls.moveParticipant(from, to);
    await this.votes.moveVoter(from, to);
  }

  async deleteAccount(address: string): Promise<void> {
    await this.votes.removeOfVoter(address);
    // Votes before polls: a deletion that stops in between leaves no vote of a missing poll.
    await this.votes.removeOfPolls(await this.polls.createdBy(address));
    await this.polls.removeCreatedBy(address);
  }
}
