/**
 * The upgrade of polls stored before polls had `places` (one poll, one conversation): such a
 * record has `channelId` (a channel poll) or `recipientAddress` (a direct poll, sent as a `poll`
 * message by the creator), `participants` and possibly `withheld`. Without `places` their
 * readers would get 404 and the lists would miss them, so the area rewrites them when it
 * ensures its indexes (at start, and in the `ensure-indexes` Job before a rollout):
 *
 * - `channelId` becomes a `channel` place (`channel:<id>`);
 * - `recipientAddress` becomes a `direct` place with the chat's conversation id, the recipient
 *   as `peer`, the old `withheld`, and the sequence and client_message_id of the poll message
 *   when it is found in that conversation (sequence 0 and no key otherwise);
 * - the old fields are removed.
 *
 * Idempotent: only records without `places` are read, and each is rewritten by a conditional
 * update (still without `places`), so a rerun, or two processes running it at once, change
 * nothing twice. The obsolete `polls_by_channel` index is not dropped here (the store port has
 * no drop; docs/areas/polls.md says how an operator drops it).
 */
import type { DocumentStore } from '../platform/store/document-store.js';
import { directConversationId } from '../messaging/conversations/conversation.js';
import type { PollPlace } from './poll-place.js';

/** A poll as the code before `places` stored it. */
export interface LegacyPoll {
  _id: string;
  creatorAddress: string;
  participants?: string[];
  channelId?: string;
  recipientAddress?: string;
  withheld?: boolean;
}

/** The fields of a `poll` message the upgrade reads. */
interface PollMessage {
  _id: string;
  conversationId: string;
  kind: string;
  pollId: string;
  sequence: number;
  clientMessageId?: string;
}

const OLD_FIELDS = { channelId: '', recipientAddress: '', withheld: '' } as const;

/** Rewrites every poll stored without `places`; answers how many it rewrote. */
export async function upgradeLegacyPolls(store: DocumentStore): Promise<number> {
  const old = await pollsIn(store).find({ places: { $exists: false } });
  let upgraded = 0;
  for (const poll of old) upgraded += await upgradeLegacyPoll(store, poll);
  return upgraded;
}

const pollsIn = (store: DocumentStore) =>
  store.collection<LegacyPoll & { places?: PollPlace[] }>('polls');

/**
 * Rewrites one poll stored without `places` (answers 1, or 0 when another process did it
 * first). Also called on the read of such a poll: one that a pod of the previous version
 * stored during a rollout, after this version's upgrade ran.
 */
export async function upgradeLegacyPoll(store: DocumentStore, poll: LegacyPoll): Promise<number> {
  const messages = store.collection<PollMessage>('messages');
  const places: PollPlace[] = [];
  const participants = new Set([poll.creatorAddress, ...(poll.participants ?? [])]);
  if (poll.channelId) places.push(channelPlace(poll.channelId));
  if (poll.recipientAddress) {
    const conversationId = directConversationId(poll.creatorAddress, poll.recipientAddress);
    // Through the conversation's sequence index: one chat's messages, not the collection.
    const message = await messages.findOne(
      { conversationId, kind: 'poll', pollId: poll._id },
      { projection: { sequence: 1, clientMessageId: 1 } },
    );
    const withheld = poll.withheld === true;
    places.push({
      conversationId,
      type: 'direct',
      peer: poll.recipientAddress,
      groupId: '',
      channelId: '',
      sequence: message?.sequence ?? 0,
      clientMessageId: message?.clientMessageId ?? '',
      withheld,
    });
    if (!withheld) participants.add(poll.recipientAddress);
  }
  const result = await pollsIn(store).updateOne(
    { _id: poll._id, places: { $exists: false } },
    { $set: { places, participants: [...participants] }, $unset: OLD_FIELDS },
  );
  return result.modifiedCount;
}

function channelPlace(channelId: string): PollPlace {
  return {
    conversationId: `channel:${channelId}`,
    type: 'channel',
    peer: '',
    groupId: '',
    channelId,
    sequence: 0,
    clientMessageId: '',
    withheld: false,
  };
}
