/**
 * Creating a poll: the record, then, when the request names a conversation, the poll sent
 * there as its creator sends it (`PollSends`, poll-placing.ts: a `poll` message or channel post
 * carrying its id). The record is
 * written first, so a message never names a missing poll; when the send is refused the poll is
 * removed again. Without a conversation (the spec's bare request) the poll is its creator's
 * alone until it sends it somewhere (SendMessage with `poll_id`).
 */
import { newId } from '../platform/store/new-id.js';
import type { PollRepository, StoredPoll } from './poll.js';
import type { PollSendRequest, PollSends } from '../messaging/messages/poll-sends-port.js';

export interface NewPoll {
  readonly question: string;
  readonly options: string[];
  readonly allowsMultiple: boolean;
  readonly expiresAt: Date | null;
}

export class PollCreation {
  constructor(
    private readonly polls: PollRepository,
    private readonly sends: PollSends,
  ) {}

  /** Stores the poll and, with a target, sends it there; answers the stored poll. */
  async create(
    creator: string,
    fields: NewPoll,
    target: Pick<PollSendRequest, 'recipientAddress' | 'groupId' | 'channelId'> | null,
  ): Promise<StoredPoll> {
    const _id = newId();
    const poll: StoredPoll = {
      _id,
      question: fields.question,
      options: fields.options.map((text) => ({ id: newId(), text })),
      allowsMultiple: fields.allowsMultiple,
      createdAt: new Date(),
      creatorAddress: creator,
      expiresAt: fields.expiresAt,
      places: [],
      participants: [creator],
    };
    await this.polls.insert(poll);
    if (target === null) return poll;
    try {
      // The creation's own idempotency key: CreatePoll has none, and this one is new each time.
      await this.sends.send(creator, { ...target, pollId: _id, clientMessageId: `poll-${_id}` });
    } catch (error) {
      await this.polls.remove(_id);
      throw error;
    }
    return poll;
  }
}
