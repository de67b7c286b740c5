/**
 * A poll as stored: the question and options in clear (the server counts votes, polls.proto),
 * where it lives (a channel, or a direct chat with one recipient) and when voting closes. The
 * results are not stored here: they are counted from the vote records (poll-votes.ts), so a
 * changed or deleted vote can never leave a count behind.
 */
import type { CursorPosition } from '../platform/api/page-cursor.js';
import type { DocumentStore, IndexSpec, StoreFilter } from '../platform/store/document-store.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';

export interface StoredPollOption {
  readonly id: string;
  readonly text: string;
}

export interface StoredPoll {
  _id: string;
  question: string;
  options: StoredPollOption[];
  allowsMultiple: boolean;
  createdAt: Date;
  creatorAddress: string;
  /** Null when the poll never closes. */
  expiresAt: Date | null;
  /** The channel it was posted in; empty for a direct poll. */
  channelId: string;
  /** The user it was sent to in the direct chat; empty for a channel poll. */
  recipientAddress: string;
  /** The creator, and the recipient of a direct poll: whose own list of polls holds it. */
  participants: string[];
  /**
   * Sent while the recipient had blocked the creator: like the withheld message that carries
   * it, the creator sees it and the recipient never does (not listed, 404).
   */
  withheld?: boolean;
}

const POLLS = 'polls';

/** A user's polls and a channel's polls, newest first; the polls a user created, for deletions. */
export const pollIndexes: IndexSpec[] = [
  { collection: POLLS, name: 'polls_by_participant', key: { participants: 1, createdAt: -1 } },
  { collection: POLLS, name: 'polls_by_channel', key: { channelId: 1, createdAt: -1 } },
  { collection: POLLS, name: 'polls_by_creator', key: { creatorAddress: 1 } },
];

/** Which polls a list shows (ListPolls' filters). */
export type PollScope =
  { readonly participant: string; readonly peer?: string } | { readonly channelId: string };

export class PollRepository {
  private readonly polls;

  constructor(store: DocumentStore) {
    this.polls = store.collection<StoredPoll>(POLLS);
  }

  async insert(poll: StoredPoll): Promise<void> {
    await this.polls.insertOne(poll);
  }

  find(pollId: string): Promise<StoredPoll | null> {
    return this.polls.findOne({ _id: pollId });
  }

  /** Hides a direct poll from its recipient for good (see `withheld`). */
  async withhold(poll: StoredPoll): Promise<void> {
    await this.polls.updateOne(
      { _id: poll._id },
      { $set: { withheld: true, participants: [poll.creatorAddress] } },
    );
  }

  async remove(pollId: string): Promise<void> {
    await this.polls.deleteOne({ _id: pollId });
  }

  /**
   * A page of polls, newest first: a user's direct polls and the polls it created (with `peer`,
   * only those exchanged with that user in the direct chat), or one channel's polls.
   */
  page(
    scope: PollScope,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<StoredPoll>> {
    let filter: StoreFilter<StoredPoll>;
    if ('channelId' in scope) filter = { channelId: scope.channelId };
    else if (scope.peer === undefined) filter = { participants: scope.participant };
    else
      filter = {
        participants: scope.participant,
        channelId: '',
        creatorAddress: { $in: [scope.participant, scope.peer] },
        recipientAddress: { $in: [scope.participant, scope.peer] },
      };
    return newestFirstPage(this.polls, filter, 'createdAt', limit, after);
  }

  /** The ids of the polls `address` created. */
  async createdBy(address: string): Promise<string[]> {
    return (await this.polls.find({ creatorAddress: address }, { projection: { _id: 1 } })).map(
      (poll) => poll._id,
    );
  }

  async removeCreatedBy(address: string): Promise<void> {
    await this.polls.deleteMany({ creatorAddress: address });
  }

  /** Re-keys the polls `from` created or received to `to`. */
  async moveParticipant(from: string, to: string): Promise<void> {
    const moved = (address: string) => (address === from ? to : address);
    await rekeyDocuments(this.polls, { participants: from }, (poll) => ({
      ...poll,
      creatorAddress: moved(poll.creatorAddress),
      recipientAddress: moved(poll.recipientAddress),
      participants: poll.participants.map(moved),
    }));
  }
}
