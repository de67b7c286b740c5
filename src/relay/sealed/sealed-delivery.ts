/**
 * Hands sealed envelopes to their recipients' WebSocket connections. An envelope is handed over
 * only while the recipient is connected (some ws pod holds their channel): it is claimed in the
 * store (exactly once), then published as the durable `/ws` event `sealed.message`, numbered in
 * the recipient's stream so that a connection dropping just then gets it on resume. Otherwise
 * it waits in the store, up to 30 days, and is handed over when a ws pod announces the
 * recipient's next connection (`drain`); meanwhile the recipient's offline devices are woken
 * (push, kind `sealed_message`, which names nobody).
 *
 * The event carries the relay's message id, the payload and when it was received; nothing
 * about the sender.
 */
import type { Logger } from '../../platform/logging/logger.js';
import type { WakeUps } from '../../push/delivery/wake-ups.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import { eventJson } from '../../events/event-envelope.js';
import type { UserEventStream } from '../../events/user-event-stream.js';
import type { SealedEnvelope } from './sealed-envelope.js';
import type { SealedMailbox } from './sealed-mailbox.js';

/** One drain per recipient at a time across api pods: envelopes then go out in order. */
const DRAIN_LOCK_MS = 30_000;

export class SealedDelivery {
  constructor(
    private readonly mailbox: SealedMailbox,
    private readonly events: UserEventStream,
    private readonly sharedState: SharedState,
    private readonly logger: Logger,
    private readonly wakeUps: WakeUps,
  ) {}

  /**
   * Hands a just-accepted envelope over if its recipient is connected; true when it is
   * delivered. The envelope is already stored: with shared state away it stays queued for the
   * recipient's next connection rather than failing the send.
   */
  async deliver(envelope: SealedEnvelope): Promise<boolean> {
    const connected = await this.events.isConnected(envelope.recipient).catch((error: unknown) => {
      this.logger.warn(
        { err: error, messageId: envelope._id },
        'sealed envelope queued: shared state did not say whether its recipient is connected',
      );
      return false;
    });
    if (!connected) {
      void this.wakeUps.wake([envelope.recipient], { kind: 'sealed_message' });
      return false;
    }
    const claimed = await this.mailbox.claim({ _id: envelope._id });
    // Claimed meanwhile by a drain, which delivers it.
    if (!claimed) return true;
    return this.handOver(claimed);
  }

  /** Hands over every queued envelope of a recipient who just connected, oldest first. */
  async drain(recipient: string): Promise<void> {
    const lock = `relay:drain:{${recipient}}`;
    if (!(await this.sharedState.set(lock, '1', { ttlMs: DRAIN_LOCK_MS, onlyIfAbsent: true })))
      return;
    try {
      for (
        let next = await this.mailbox.claim({ recipient });
        next;
        next = await this.mailbox.claim({ recipient })
      ) {
        if (!(await this.handOver(next))) return;
      }
    } finally {
      await this.sharedState.delete(lock);
    }
  }

  private async handOver(envelope: SealedEnvelope): Promise<boolean> {
    const data = {
      message_id: envelope._id,
      sealed_payload: envelope.payload,
      received_at: envelope.receivedAt.toISOString(),
    };
    try {
      await this.events.publishDurable(envelope.recipient, eventJson('sealed.message', data));
      return true;
    } catch (error) {
      await this.mailbox.release(envelope);
      this.logger.warn(
        { err: error, messageId: envelope._id },
        'sealed envelope kept queued: its event could not be published',
      );
      return false;
    }
  }
}
