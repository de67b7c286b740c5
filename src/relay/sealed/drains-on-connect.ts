/**
 * Drains a recipient's queued envelopes when a ws pod announces their connection. Listening
 * needs shared state: while it is away (at start, or when subscribing failed) the api pod keeps
 * trying in the background instead of refusing to start, and the envelopes stay queued in the
 * store, the record, until an announcement is heard.
 */
import { DependencyUnavailableError } from '../../platform/errors/dependency-unavailable.js';
import type { OutageLog } from '../../platform/logging/outage-log.js';
import type { Unsubscribe } from '../../platform/shared-state/shared-state.js';
import type { UserConnections } from '../../events/user-connections.js';
import type { SealedDelivery } from './sealed-delivery.js';

/** How long to wait before subscribing again after a failed attempt. */
const RETRY_MS = 1000;

export class DrainsOnConnect {
  private unsubscribe: Unsubscribe | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly connections: UserConnections,
    private readonly delivery: SealedDelivery,
    private readonly outages: OutageLog,
  ) {}

  /** Resolves once listening, or once the first attempt failed (retried in the background). */
  async start(): Promise<void> {
    try {
      const unsubscribe = await this.connections.onConnected((address) => this.drain(address));
      if (this.stopped) await unsubscribe().catch(() => undefined);
      else this.unsubscribe = unsubscribe;
    } catch {
      if (!this.stopped) this.retry = setTimeout(() => void this.start(), RETRY_MS);
    }
  }

  /**
   * A drain that meets a dependency outage leaves the envelopes queued (the next announcement
   * drains them) and is counted in the outage log, once per interval like every outage, rather
   * than logged with a stack per announcement.
   */
  private async drain(address: string): Promise<void> {
    try {
      await this.delivery.drain(address);
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      this.outages.report(error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    // Shared state away at shutdown: the subscription ends with its connection anyway.
    await this.unsubscribe?.().catch(() => undefined);
  }
}
