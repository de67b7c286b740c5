/**
 * A poll as stored: the question and options in clear (the server counts votes, polls.proto),
 * the conversations it was placed in (none for a poll its creator has not sent yet) and when
 * voting closes. The results are not stored here: they are counted from the vote records
 * (poll-votes.ts), so a changed or deleted vote can never leave a count behind.
 */
import type { CursorPosition } from '../platform/api/page-cursor.js';
import type { DocumentStore, IndexSpec, StoreFilter } from '../platform/store/document-store.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';
import { directConversationId } from '../messaging/conversations/conversation.js';
import { upgradeLegacyPoll } from './legacy-poll-upgrade.js';
import type { PollPlace } from './poll-place.js';

export interface StoredPollOption {
  readonly id: string;
  readonly text: string;
}

export type { PollPlace } from './poll-place.js';

export interface StoredPoll {
  _id: string;
  question: string;
  options: StoredPollOption[];
  allowsMultiple: boolean;
  createdAt: Date;
  creatorAddress: string;
  /** Null when the poll never closes. */
  expiresAt: Date | null;
  /** Where it was sent, in order; empty until its creator sends it somewhere. */
  places: PollPlace[];
  /**
   * The creator, and the recipients of its direct chats that read it (not withheld): whose own
   * list of polls holds it.
   */
  participants: string[];
}

const POLLS = 'polls';

/** A user's polls and a channel's polls, newest first; the polls a user created, for deletions. */
export const pollIndexes: IndexSpec[] = [
  { collection: POLLS, name: 'polls_by_participant', key: { participants: 1, createdAt: -1 } },
  {
    collection: POLLS,
    name: 'polls_by_placed_channel',
    key: { 'places.channelId': 1, createdAt: -1 },
  },
  { collection: POLLS, name: 'polls_by_creator', key: { creatorAddress: 1 } },
];

/** Which polls a list shows (ListPolls' filters). */
export type PollScope =
  { readonly participant: string; readonly peer?: string } | { readonly channelId: string };

export class PollRepository {
  private readonly polls;

  constructor(private readonly store: DocumentStore) {
    this.polls = store.collection<StoredPoll>(POLLS);
  }

  async insert(poll: StoredPoll): Promise<void> {
    await this.polls.insertOne(poll);
  }

  async find(pollId: string): Promise<StoredPoll | null> {
    const poll = await this.polls.findOne({ _id: pollId });
    if (!poll || poll.places) return poll;
    // Stored by a pod of the previous version during a rollout: upgraded on its first read.
    await upgradeLegacyPoll(this.store, poll);
    return this.polls.findOne({ _id: pollId });
  }

  /**
   * Records that the poll is now in `place`'s conversation, unless it already is (a retried
   * send, or two sends racing: the conversation is recorded once); a direct chat's recipient
   * who reads it gets it in its own list.
   */
  async addPlace(pollId: string, place: PollPlace): Promise<void> {
    const reader = place.type === 'direct' && !place.withheld ? [place.peer] : [];
    await this.polls.updateOne(
      { _id: pollId, 'places.conversationId': { $ne: place.conversationId } },
      { $push: { places: place }, $addToSet: { participants: { $each: reader } } },
    );
  }

  async remove(pollId: string): Promise<void> {
    await this.polls.deleteOne({ _id: pollId });
  }

  /**
   * A page of polls, newest first: a user's direct polls and the polls it created (with `peer`,
   * only those in the direct chat with that user), or one channel's polls.
   */
  page(
    scope: PollScope,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<StoredPoll>> {
    let filter: StoreFilter<StoredPoll>;
    if ('channelId' in scope) filter = { 'places.channelId': scope.channelId };
    else if (scope.peer === undefined) filter = { participants: scope.participant };
    else
      filter = {
        participants: scope.participant,
        places: {
          $elemMatch: {
            conversationId: directConversationId(scope.participant, scope.peer),
            // A chat's recipient does not list what was withheld from it there.
            $or: [{ withheld: false }, { peer: { $ne: scope.participant } }],
          },
        },
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

  /** Re-keys the polls `from` created or was sent in a direct chat to `to`. */
  async moveParticipant(from: string, to: string): Promise<void> {
    const moved = (address: string) => (address === from ? to : address);
    await rekeyDocuments(
      this.polls,
      { $or: [{ creatorAddress: from }, { 'places.peer': from }] },
      (poll) => ({
        ...poll,
        creatorAddress: moved(poll.creatorAddress),
        participants: poll.participants.map(moved),
        places: poll.places.map((place) =>
          place.type === 'direct'
            ? {
                ...place,
                peer: moved(place.peer),
                conversationId: directConversationId(moved(poll.creatorAddress), moved(place.peer)),
              }
            : place,
        ),
      }),
    );
  }
}
