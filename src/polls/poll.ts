/**
 * A poll as stored: the question and options in clear (the server counts votes, polls.proto),
 * where it lives (a channel, or a direct chat with one recipient) and when voting closes. The
 * results are not stored here: they are counted from the vote records (poll-votes.ts), so a
 * changed or deleted vote can never leave a count behind.
 */
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';

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
}

const POLLS = 'polls';

/** The polls a user created or received, for account moves and deletions. */
export const pollIndexes: IndexSpec[] = [
  { collection: POLLS, name: 'polls_by_creator', key: { creatorAddress: 1 } },
  { collection: POLLS, name: 'polls_by_recipient', key: { recipientAddress: 1 } },
];

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

  async remove(pollId: string): Promise<void> {
    await this.polls.deleteOne({ _id: pollId });
  }

  /** The ids of the polls `address` created. */
  async createdBy(address: string): Promise<string[]> {
    return (await this.polls.find({ creatorAddress: address }, { projection: { _id: 1 } })).map((poll) => poll._id);
  }

  async removeCreatedBy(address: string): Promise<void> {
    await this.polls.deleteMany({ creatorAddress: address });
  }

  /** Re-keys the polls `from` created or received to `to`. */
  async moveParticipant(from: string, to: string): Promise<void> {
    await this.polls.updateMany({ creatorAddress: from }, { $set: { creatorAddress: to } });
    await this.polls.updateMany({ recipientAddress: from }, { $set: { recipientAddress: to } });
  }
}
