/**
 * The sequence numbers of a conversation's messages: 1, 2, 3, ... with no number skipped and
 * none handed out twice, across crashes and several api processes, for the cost of the
 * message's own durable write.
 *
 * - A number exists only in the message that holds it: the unique index on
 *   (conversationId, sequence) makes the store the arbiter, so a crash before the message is
 *   durable leaves nothing behind, and the next message takes the same number.
 * - Each process appends one message per conversation at a time (its turn) and remembers the
 *   last number it wrote, so it never races itself and needs no read to pick the next. When
 *   another process took the number, the insert meets the unique index: the last number is
 *   read again from the store and the next one tried.
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
import { unavailable } from '../../platform/errors/api-error.js';
import type { Collection } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import type { Conversations } from '../conversations/conversations.js';
import { SerialQueues } from '../../platform/concurrency/serial-queues.js';
import { SEQUENCE_INDEX } from './stored-message.js';
import type { StoredMessage } from './stored-message.js';

/** Other processes taking the number this many times in a row: the send is refused (503) to be retried. */
const MAX_ATTEMPTS = 10;
/** Conversations whose last number a process keeps; the least recently used is read again when needed. */
const REMEMBERED_CONVERSATIONS = 10_000;

export interface Append<R> {
  /**
   * Asked before each new attempt after another process took the number: the answer when that
   * process stored this very message (an identical request), null to write it.
   */
  readonly storedMeanwhile?: () => Promise<R | null>;
  /** Writes the message holding `sequence`; resolves once it is durable. */
  readonly write: (sequence: number) => Promise<R>;
}

export class MessageNumbering {
  private readonly turns = new SerialQueues();
  /** The last number known per conversation, least recently used first. */
  private readonly lastNumbers = new Map<string, number>();

  constructor(
    private readonly conversations: Conversations,
    private readonly messages: Collection<StoredMessage>,
  ) {}

  /**
   * Appends a message to the conversation in its turn: alone among this process's appends to
   * it, in arrival order. `write` gets the next number, and again a fresh one while other
   * processes take it (unless `storedMeanwhile` answers). When `write` fails otherwise the
   * number stays free for the next message.
   */
  append<R>(conversationId: string, append: Append<R>): Promise<R> {
    return this.turns.run(conversationId, async () => {
      for (let attempt = 1; ; attempt++) {
        const stored = attempt > 1 ? await append.storedMeanwhile?.() : null;
        if (stored) return stored;
        const sequence = (await this.lastNumber(conversationId)) + 1;
        try {
          const written = await append.write(sequence);
          this.remember(conversationId, sequence);
          return written;
        } catch (error) {
          if (!(error instanceof DuplicateKeyError && error.index === SEQUENCE_INDEX)) throw error;
          this.lastNumbers.delete(conversationId);
          if (attempt === MAX_ATTEMPTS) throw unavailable('Too many concurrent messages in this conversation; retry');
        }
      }
    });
  }

  private async lastNumber(conversationId: string): Promise<number> {
    const known = this.lastNumbers.get(conversationId);
    if (known !== undefined) return known;
    const [conversation, [newest]] = await Promise.all([
      this.conversations.find(conversationId),
      this.messages.find({ conversationId }, { sort: { sequence: -1 }, limit: 1, projection: { sequence: 1 } }),
    ]);
    const last = Math.max(conversation?.lastSequence ?? 0, newest?.sequence ?? 0);
    this.remember(conversationId, last);
    return last;
  }

  private remember(conversationId: string, last: number): void {
    this.lastNumbers.delete(conversationId);
    this.lastNumbers.set(conversationId, last);
    if (this.lastNumbers.size > REMEMBERED_CONVERSATIONS) this.lastNumbers.delete(this.lastNumbers.keys().next().value!);
  }
}
