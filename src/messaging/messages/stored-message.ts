/**
 * A message as stored: ciphertext the server cannot read, plus the routing, ordering, expiry
 * and delivery metadata it needs (see messages.proto).
 */
import type { Binary } from 'bson';
import type { StoredFranking } from '../conversations/stored-franking.js';
import type { IndexSpec, StoreFilter } from '../../platform/store/document-store.js';

export const MESSAGE_KINDS = [
  'text',
  'image',
  'voice',
  'video',
  'file',
  'sticker',
  'poll',
  'system',
] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
export type DeliveryStatus = 'sent' | 'delivered' | 'read';

/**
 * What relations add to a stored message or channel post (docs/areas/messaging.md): its reply
 * target, mentions, last edit and deletion tombstone.
 */
export interface StoredRelationFields {
  /** The message (or post) of the same conversation this one replies to (relations/reply-targets.ts). */
  replyToMessageId?: string;
  /** Mentioned members' addresses and `@everyone` (groups; relations/mentions.ts). */
  mentions?: string[];
  /** The last edit (relations/message-edits.ts): the ciphertext is the current content. */
  editedAt?: Date;
  editCount?: number;
  /**
   * Deleted for everyone (relations/message-deletions.ts): a tombstone without ciphertext or
   * media, kept so that every reader sees the same numbering.
   */
  deletedAt?: Date;
  deletedBy?: 'sender' | 'admin';
  deletedByAddress?: string;
}

export interface StoredMessage extends StoredRelationFields {
  _id: string;
  conversationId: string;
  sequence: number;
  /** The sender's idempotency key (`poll-<poll id>` for a poll sent with its creation); absent for system messages. */
  clientMessageId?: string;
  /** Hash of what the request asked for, so that a retry is told from a reuse of the key. */
  requestDigest?: string;
  senderAddress: string;
  recipientAddress: string;
  groupId: string;
  channelId: string;
  kind: MessageKind;
  /** Removed when a view-once message is opened. */
  ciphertext?: Binary;
  mediaId: string;
  /** What the attached media is, recorded when it was attached (empty/0 without media). */
  mediaSize: number;
  mediaSha256: string;
  mediaContentType: string;
  durationMs: number;
  stickerId: string;
  pollId: string;
  sentAt: Date;
  /** Absent when the message does not disappear; the TTL index deletes it at this time. */
  expiresAt?: Date;
  viewOnce: boolean;
  viewedAt: Date | null;
  status: DeliveryStatus;
  /**
   * Sent while the recipient had blocked the sender: kept for the sender (who is not told) and
   * never shown or delivered to the recipient, even after an unblock.
   */
  withheld: boolean;
  systemEvent: string;
  systemData: Record<string, unknown> | null;
  /** Present when the sender franked the message. */
  franking?: StoredFranking;
  /** The readers who deleted the message for themselves (DeleteMessageForMe). */
  hiddenFor?: string[];
  /**
   * Present until `message.new` is known to be in every recipient's event stream: the stored
   * message is its own outbox record (message-announcer.ts). Removed in batches after the
   * publish; what is left past a few seconds is announced by the sweeper.
   */
  unannounced?: true;
}

export const MESSAGES = 'messages';
/** The unique index that lets one message only hold each number of a conversation. */
export const SEQUENCE_INDEX = 'conversation_sequence';

/** `(sender, client_message_id)` is unique among the messages that have a client id. */
const IDEMPOTENCY_PARTIAL_FILTER = { clientMessageId: { $type: 'string' } } as const;

export const messageIndexes: IndexSpec[] = [
  {
    collection: MESSAGES,
    name: 'idempotency_key',
    key: { senderAddress: 1, clientMessageId: 1 },
    unique: true,
    partialFilterExpression: IDEMPOTENCY_PARTIAL_FILTER,
  },
  {
    collection: MESSAGES,
    name: SEQUENCE_INDEX,
    key: { conversationId: 1, sequence: 1 },
    unique: true,
  },
  { collection: MESSAGES, name: 'disappear', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
  // Holds only the messages not yet announced: a handful, whatever the size of the collection.
  {
    collection: MESSAGES,
    name: 'unannounced',
    key: { sentAt: 1 },
    partialFilterExpression: { unannounced: true },
  },
];

/** Messages stored before `cutoff` and still not announced, through the `unannounced` partial index. */
export function unannouncedBefore(cutoff: Date): StoreFilter<StoredMessage> {
  return { unannounced: true, sentAt: { $lt: cutoff } };
}

/**
 * The lookup of a sender's message by its idempotency key. It restates the partial filter of
 * `idempotency_key`: MongoDB's planner uses a partial index only for a query that implies its
 * filter, and an equality on a string does not imply `$type: 'string'` (every send would
 * otherwise scan the whole collection).
 */
export function byIdempotencyKey(
  senderAddress: string,
  clientMessageId: string,
): StoreFilter<StoredMessage> {
  return {
    senderAddress,
    clientMessageId: { $eq: clientMessageId, ...IDEMPOTENCY_PARTIAL_FILTER.clientMessageId },
  };
}
