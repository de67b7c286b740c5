/**
 * Keeps the key directory holding every stored bundle. The store is the durable record; DHT
 * nodes keep records in memory and drop those received more than 48 hours ago, so the records
 * are written again from the store:
 * - whenever this node joins (at start, or when its peers come back after it had none), since
 *   its own memory is empty after a restart and its peers may have lost theirs;
 * - every REPUBLISH_INTERVAL_MS, well before the 48 hours, by one api pod at a time (a lock in
 *   shared state), since one pod's write reaches the nodes that hold each record.
 * A publish writes its own record at once (publish-bundle.ts).
 */
import type { Logger } from '../../platform/logging/logger.js';
import type { RecordDirectory } from '../../platform/dht/record-directory.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import { encodeSignedBundle } from '../bundle/signed-bundle.js';
import type { KeyBundleRepository } from '../store/key-bundle-repository.js';

export const REPUBLISH_INTERVAL_MS = 12 * 60 * 60 * 1000;
const CONCURRENT_PUTS = 8;
const PERIODIC_LOCK = 'keys:republish';

export class KeyRecordRepublisher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly bundles: KeyBundleRepository,
    private readonly directory: RecordDirectory,
    private readonly sharedState: SharedState,
    private readonly logger: Logger,
    private readonly intervalMs = REPUBLISH_INTERVAL_MS,
  ) {}

  start(): void {
    this.directory.onJoined(() => this.schedule('joined'));
    this.timer = setInterval(() => this.schedule('periodic'), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** Runs after the previous round, never two at once. */
  private schedule(reason: 'joined' | 'periodic'): void {
    this.running = this.running
      .then(() => this.round(reason))
      .catch((error: unknown) =>
        this.logger.warn(
          { err: error, reason },
          'key records not re-published; retried at the next round',
        ),
      );
  }

  private async round(reason: 'joined' | 'periodic'): Promise<void> {
    if (this.stopped) return;
    if (
      reason === 'periodic' &&
      !(await this.sharedState.set(PERIODIC_LOCK, String(process.pid), {
        ttlMs: Math.max(1_000, this.intervalMs - 60_000),
        onlyIfAbsent: true,
      }))
    )
      return;
    const started = Date.now();
    let written = 0;
    let failed = 0;
    const bundles = this.bundles.all();
    const worker = async () => {
      for (
        let next = await bundles.next();
        !next.done && !this.stopped;
        next = await bundles.next()
      ) {
        await this.directory.put(next.value.address, encodeSignedBundle(next.value)).then(
          () => written++,
          () => failed++,
        );
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_PUTS }, worker));
    this.logger.info(
      { reason, written, failed, ms: Date.now() - started },
      'key records re-published to the directory',
    );
  }
}
