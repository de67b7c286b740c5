/**
 * ApproveRecovery and RejectRecovery once the signature is checked: a guardian decides once per
 * request, while it is open. The approval that reaches the threshold starts the time lock;
 * rejections that leave the threshold out of reach (while approvals are still collected) end
 * the request as `rejected`. The owner and the guardians are told.
 */
import { conflict, gone, notFound, permissionDenied } from '../platform/errors/api-error.js';
import type { RecoveryNotices } from './recovery-notices.js';
import type {
  GuardianDecision,
  RecoveryRequestRecord,
  RecoveryRequests,
} from './recovery-request.js';
import { statusAt } from './recovery-request.js';

export class GuardianDecisions {
  constructor(
    private readonly requests: RecoveryRequests,
    private readonly notices: RecoveryNotices,
  ) {}

  /** The request a guardian may decide on: 404 unknown, 403 not its guardian. */
  async requireGuarded(id: string, guardian: string): Promise<RecoveryRequestRecord> {
    const request = await this.requests.find(id);
    if (!request) throw notFound('No such recovery request');
    if (!request.guardians.includes(guardian))
      throw permissionDenied('You are not a guardian of this account');
    return request;
  }

  async decide(
    request: RecoveryRequestRecord,
    decision: GuardianDecision,
    now: Date,
  ): Promise<RecoveryRequestRecord> {
    const decided = await this.requests.decide(request._id, decision, now);
    if (!decided) {
      const current = (await this.requests.find(request._id)) ?? request;
      if (current.decisions.some((made) => made.guardian === decision.guardian))
        throw conflict('You already decided on this request');
      throw gone(`The request is ${statusAt(current, now)}`);
    }
    await this.notices.requestChanged(decided, decision.decision, now);
    if (decided.status !== 'pending') return decided;
    if (decision.decision === 'approved' && decided.approvals >= decided.approvalsRequired) {
      await this.requests.startTimeLock(decided, now);
      const locked = (await this.requests.find(decided._id))!;
      await this.notices.requestChanged(locked, 'threshold_reached', now);
      return locked;
    }
    if (
      decision.decision === 'rejected' &&
      decided.rejections > decided.guardians.length - decided.approvalsRequired
    ) {
      if (await this.requests.close(decided, 'rejected', now)) {
        const rejected = (await this.requests.find(decided._id))!;
        await this.notices.requestChanged(rejected, 'rejected', now);
        return rejected;
      }
    }
    return decided;
  }
}
