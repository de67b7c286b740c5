/**
 * The sequence numbers of a conversation's messages: 1, 2, 3, ... with no number skipped and
 * none handed out twice, across crashes and several api processes, for the cost of the
 * message's own durable write.
 *
 * - The numbering itself (platform/store/sequence-numbering.ts): a number exists only in the
 *   message that holds it (the unique index on (conversationId, sequence)), one append per
 *   conversation at a time per process, the number read again when another process took it.
 * - The highest stored number can go down (disappearing messages are deleted by a TTL index,
 *   view-once ones expire), so the conversation record keeps a floor, `lastSequence`, raised
 *   with `$max` in the same group commit as the message (see MessageSender.store): never
 *   before it, or a crash in between would leave a number without a message. The last number
 *   is the higher of the floor and the highest stored message.
 *
 * What can still leave a number unused (docs/architecture.md, "Sequence numbers"): an insert
 * refused for another reason after the floor was raised (two requests with one idempotency key
 * at the same instant on two processes) until this process's next message takes it, and, on
 * MongoDB, a process dying between the message's write and the floor's.
 */
import type { Collection } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import { SequenceNumbering } from '../../platform/store/sequence-numbering.js';
import type { Conversations } from '../conversations/conversations.js';
import { SEQUENCE_INDEX } from './stored-message.js';
import type { StoredMessage } from './stored-message.js';

export class MessageNumbering extends SequenceNumbering {
  constructor(conversations: Conversations, messages: Collection<StoredMessage>) {
    super({
      // The last number is the higher of the conversation's floor and its newest stored message.
      async lastStored(conversationId) {
        const [conversation, [newest]] = await Promise.all([
          conversations.find(conversationId),
          messages.find(
            { conversationId },
            { sort: { sequence: -1 }, limit: 1, projection: { sequence: 1 } },
          ),
        ]);
        return Math.max(conversation?.lastSequence ?? 0, newest?.sequence ?? 0);
      },
      isTaken: (error) => error instanceof DuplicateKeyError && error.index === SEQUENCE_INDEX,
    });
  }
}
