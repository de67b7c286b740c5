/**
 * What recovery tells users over /ws (durable events, docs/realtime.md): guardians that they
 * were chosen (`recovery.guardian_chosen`), and the account's owner and its guardians of each
 * change of a request (`recovery.request_updated`: opened, approved, rejected, threshold
 * reached, cancelled, completed). The same events wake offline devices by push: an opened
 * request wakes the guardians (asked to decide) and the owner (someone is trying to take the
 * account over: the owner's chance to cancel within the time lock); later changes the owner.
 * A notice is sent after the durable change it announces; one that cannot be published is
 * logged by the event publisher and the state stays readable over REST.
 */
import type { WakeUps } from '../push/delivery/wake-ups.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { RecoveryRequestRecord } from './recovery-request.js';
import { requestView } from './request-view.js';

export type RequestChange =
  'opened' | 'approved' | 'rejected' | 'threshold_reached' | 'cancelled' | 'completed';

export class RecoveryNotices {
  constructor(
    private readonly events: MessagingEvents,
    private readonly wakeUps: WakeUps,
  ) {}

  async guardiansChosen(owner: string, guardians: readonly string[]): Promise<void> {
    await this.events.durable('recovery.guardian_chosen', guardians, { address: owner });
  }

  async requestChanged(
    request: RecoveryRequestRecord,
    change: RequestChange,
    now: Date,
  ): Promise<void> {
    await this.events.durable('recovery.request_updated', [request.address, ...request.guardians], {
      change,
      request: requestView(request, now),
    });
    const woken = change === 'opened' ? [request.address, ...request.guardians] : [request.address];
    void this.wakeUps.wake(woken, { kind: 'recovery_request' });
  }
}
