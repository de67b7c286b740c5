/**
 * Announces the messages left unannounced: their process died between the message's write
 * and its publish, or the publish failed (Redis away, or refusing the script) and nobody
 * retried the send. Every api pod runs one; announcing twice is harmless (see
 * message-announcer.ts), so they need no coordination.
 */
import type { Logger } from '../../platform/logging/logger.js';
import type { Collection } from '../../platform/store/document-store.js';
import type { MessageAnnouncer } from './message-announcer.js';
import { unannouncedBefore } from './stored-message.js';
import type { StoredMessage } from './stored-message.js';

/**
 * A message still unannounced this long after it was stored is the sweeper's: long past a
 * normal publish and its batched mark, so that the sweeper does not publish what the send
 * is about to.
 */
export const ANNOUNCEMENT_GRACE_MS = 5000;
const SWEEP_INTERVAL_MS = 2000;
const BATCH = 100;

export class AnnouncementSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly messages: Collection<StoredMessage>,
    private readonly announcer: MessageAnnouncer,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweepOnce(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops sweeping, waits for a sweep in progress and writes the marks still pending. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
    await this.announcer.writeMarks();
  }

  /** One sweep, never two at once; a failure is logged and the next sweep tries again. */
  sweepOnce(): Promise<void> {
    this.sweeping ??= this.announceOverdue()
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'unannounced messages not swept; retrying'),
      )
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  /** Sweeps batch after batch until one is not full, or a message cannot be published. */
  private async announceOverdue(): Promise<void> {
    for (;;) {
      const overdue = await this.messages.find(
        unannouncedBefore(new Date(Date.now() - ANNOUNCEMENT_GRACE_MS)),
        { sort: { sentAt: 1 }, limit: BATCH },
      );
      const announced = await this.announceInOrder(overdue);
      // Written before the next query, which would otherwise find the same messages again.
      await this.announcer.writeMarks();
      if (announced > 0)
        this.logger.info({ announced }, 'announced messages that were left unannounced');
      if (announced < BATCH) return;
    }
  }

  /**
   * In sequence order within each conversation; stops at the first message that cannot be
   * published (the event streams are away), for the next sweep to start there again. Answers
   * how many went out.
   */
  private async announceInOrder(messages: StoredMessage[]): Promise<number> {
    messages.sort(
      (a, b) => a.conversationId.localeCompare(b.conversationId) || a.sequence - b.sequence,
    );
    let announced = 0;
    for (const message of messages) {
      if (!(await this.announcer.announce(message))) break;
      announced += 1;
    }
    return announced;
  }
}
