/**
 * The "announced" marks of messages whose `message.new` every recipient's stream has, written
 * in batches off the request path: one update removes `unannounced` from every message
 * announced since the last batch.
 *
 * A batch goes out when the next message is written, in the same tick (so that on the
 * embedded store both share that write's group commit: a send still costs one fdatasync), or
 * after IDLE_WRITE_MS when no message follows. A mark lost in a crash or a failed write costs
 * only a second publish by the sweeper, which the event streams' dedupe keys absorb.
 */
import type { Logger } from '../../platform/logging/logger.js';
import type { Collection } from '../../platform/store/document-store.js';
import type { StoredMessage } from './stored-message.js';

/** Well under the sweeper's grace, so that it rarely meets a message whose mark is only late. */
const IDLE_WRITE_MS = 1000;

export class AnnouncedMarks {
  private pending: string[] = [];
  private idleWrite: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly messages: Collection<StoredMessage>,
    private readonly logger: Logger,
  ) {}

  add(messageId: string): void {
    this.pending.push(messageId);
    this.idleWrite ??= setTimeout(() => void this.write(), IDLE_WRITE_MS).unref();
  }

  /**
   * Starts writing the pending marks now (synchronously, so that a write issued in the same
   * tick joins its group commit); resolves when they and every earlier batch are written.
   */
  write(): Promise<void> {
    clearTimeout(this.idleWrite);
    this.idleWrite = undefined;
    if (this.pending.length > 0) {
      const ids = this.pending;
      this.pending = [];
      const writing = this.messages
        .updateMany({ _id: { $in: ids } }, { $unset: { unannounced: '' } })
        .then(
          () => undefined,
          (error: unknown) =>
            this.logger.warn(
              { err: error, messages: ids.length },
              'announced marks not written; the sweeper will announce those messages again',
            ),
        )
        .finally(() => this.inFlight.delete(writing));
      this.inFlight.add(writing);
    }
    return Promise.all(this.inFlight).then(() => undefined);
  }
}
