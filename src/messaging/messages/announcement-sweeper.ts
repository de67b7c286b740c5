/**
 * Announces the messages left unannounced: their process died between the message's write
 * and its publish, or the publish failed (Redis away, or refusing the script) and nobody
 * retried the send. Every api pod runs one; announcing twice is harmless (see
 * message-announcer.ts), so they need no coordination.
 *
 * When it sleeps: after a sweep it waits until the earliest message still unannounced is
 * ANNOUNCEMENT_GRACE_MS old; an announcement that fails in this process wakes it for that message
 * (MessageAnnouncer.onLeftUnannounced). A message left by a process that died is found by this
 * pod's next sweep, SAFETY_POLL_MS + ANNOUNCEMENT_GRACE_MS after it was stored at worst (after a
 * restart, the sweep at start finds the process's own). Sweeps are SWEEP_INTERVAL_MS apart at
 * least.
 */
import type { Logger } from '../../platform/logging/logger.js';
import { DueWork } from '../../platform/scheduling/due-work.js';
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
/** The longest sleep: how late a message that a process which died left unannounced is looked at. */
const SAFETY_POLL_MS = 10_000;
const BATCH = 100;
/** Later than any message, to ask for the earliest one unannounced. */
const END_OF_TIME = new Date(8.64e15);

export class AnnouncementSweeper {
  private readonly work: DueWork;

  constructor(
    private readonly messages: Collection<StoredMessage>,
    private readonly announcer: MessageAnnouncer,
    private readonly logger: Logger,
  ) {
    this.work = new DueWork({
      name: 'announcement-sweep',
      minIntervalMs: SWEEP_INTERVAL_MS,
      safetyPollMs: SAFETY_POLL_MS,
      run: async () => {
        await this.announceOverdue();
        return this.nextOverdueAt();
      },
      onFailure: (error) =>
        this.logger.warn({ err: error }, 'unannounced messages not swept; retrying'),
    });
    announcer.onLeftUnannounced((sentAt) =>
      this.work.dueBy(sentAt.getTime() + ANNOUNCEMENT_GRACE_MS),
    );
  }

  start(): void {
    this.work.start();
  }

  /** Stops sweeping, waits for a sweep in progress and writes the marks still pending. */
  async stop(): Promise<void> {
    await this.work.stop();
    await this.announcer.writeMarks();
  }

  /** One sweep, never two at once; a failure is logged and the sweep is retried. */
  sweepOnce(): Promise<void> {
    return this.work.runOnce();
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

  /** When the earliest message still unannounced becomes the sweeper's (epoch ms), if any. */
  private async nextOverdueAt(): Promise<number | undefined> {
    const [earliest] = await this.messages.find(unannouncedBefore(END_OF_TIME), {
      sort: { sentAt: 1 },
      limit: 1,
    });
    return earliest && earliest.sentAt.getTime() + ANNOUNCEMENT_GRACE_MS;
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
