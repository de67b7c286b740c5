/**
 * What other areas call when an event should reach users who may be offline: `wake(addresses,
 * { kind, conversationId?, seq? })`. It only queues wake jobs (one shared-state write per
 * WAKE_JOB_ADDRESSES recipients) and never throws or waits for delivery, so a send is neither
 * slowed nor failed by push: an api pod's PushDispatcher later finds each user's subscriptions,
 * skips the devices connected over /ws, coalesces bursts and sends. Built once per process by the app for every role (call
 * offers come from ws pods).
 *
 * Kinds (wake-kinds.ts): `message` (new direct message, wired in messaging), `sealed_message`
 * (relay), `call` (call signaling), `group_message` and `recovery_request` (for the groups and
 * recovery areas).
 */
import type { Logger } from '../../platform/logging/logger.js';
import type { OutageLog } from '../../platform/logging/outage-log.js';
import { DependencyUnavailableError } from '../../platform/errors/dependency-unavailable.js';
import { currentTraceparent } from '../../platform/tracing/spans.js';
import { WAKE_JOB_ADDRESSES } from './push-queue.js';
import type { PushQueue } from './push-queue.js';
import type { WakeUp } from './wake-kinds.js';

export class WakeUps {
  constructor(
    private readonly queue: PushQueue,
    private readonly logger: Logger,
    private readonly outages: OutageLog,
  ) {}

  /** Queues the wake-up of every one of `addresses`; resolves once queued or the failure logged (never rejects). */
  async wake(addresses: readonly string[], wake: WakeUp): Promise<void> {
    const jobs: Promise<void>[] = [];
    // The dispatcher's work joins the waking request's trace (push-dispatcher.ts).
    const traceparent = currentTraceparent();
    for (let start = 0; start < addresses.length; start += WAKE_JOB_ADDRESSES) {
      const batch = addresses.slice(start, start + WAKE_JOB_ADDRESSES);
      jobs.push(
        this.queue
          .add({ type: 'wake', addresses: batch, wake, traceparent })
          .catch((error: unknown) => {
            if (error instanceof DependencyUnavailableError) this.outages.report(error);
            else
              this.logger.error(
                { err: error, kind: wake.kind, recipients: batch.length },
                'push wake-up not queued',
              );
          }),
      );
    }
    await Promise.all(jobs);
  }
}
