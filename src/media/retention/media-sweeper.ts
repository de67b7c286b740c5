/**
 * Deletes media whose time has come (release-time.ts): every api pod runs one, started and
 * stopped by the app as a background task. Safe with several pods at once: an item is claimed
 * by a write conditional on the revision read, so only one pod deletes it, and an item whose
 * references changed meanwhile is looked at again on the next pass.
 */
import type { Logger } from '../../platform/logging/logger.js';
import type { MediaItem } from '../media-item.js';
import type { MediaItems } from '../media-items.js';
import type { DeletionReason, MediaMetrics } from '../media-metrics.js';
import type { MediaDisposal } from './media-disposal.js';
import { releaseTime } from './release-time.js';

const BATCH = 100;

export interface MediaSweeperSettings {
  readonly unreferencedRetentionMs: number;
  readonly sweepIntervalMs: number;
}

export class MediaSweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly items: MediaItems,
    private readonly disposal: MediaDisposal,
    private readonly settings: MediaSweeperSettings,
    private readonly metrics: MediaMetrics,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweepOnce(), this.settings.sweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep, never two at once in a process; a failure is logged and the next sweep tries again. */
  sweepOnce(): Promise<void> {
    this.sweeping ??= this.sweepDue()
      .catch((error: unknown) => {
        this.metrics.sweepFailures.inc();
        this.logger.warn({ err: error }, 'media sweep failed; retrying at the next interval');
      })
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  private async sweepDue(): Promise<void> {
    for (;;) {
      const now = new Date();
      const due = await this.items.dueForCheck(now, BATCH);
      for (const item of due) await this.settle(item, now);
      if (due.length < BATCH) return;
    }
  }

  /** Deletes the item if its time has come, else moves its next check to that time. */
  private async settle(item: MediaItem, now: Date): Promise<void> {
    const releaseAt = releaseTime(item, this.settings.unreferencedRetentionMs);
    if (releaseAt > now) {
      await this.items.postponeCheck(item, releaseAt);
      return;
    }
    if (!(await this.items.claimForDeletion(item))) return;
    await this.disposal.dispose(item);
    const reason = reasonOf(item);
    this.metrics.deletions.inc({ reason });
    this.logger.info({ mediaId: item._id, kind: item.kind, reason }, 'media deleted');
  }
}

function reasonOf(item: MediaItem): DeletionReason {
  if (item.state === 'uploading') return 'abandoned_upload';
  if (item.state === 'deleting') return 'deletion_resumed';
  return item.references.length === 0 ? 'unreferenced' : 'references_ended';
}
