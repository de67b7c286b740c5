/** A request as the API shows it (recovery.proto `RecoveryRequest`), with its status at `now`. */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { RecoveryRequestSchema } from '../gen/service/v1/recovery_pb.js';
import type { RecoveryRequestRecord } from './recovery-request.js';
import { statusAt } from './recovery-request.js';

const iso = (date: Date | null) => (date ? date.toISOString() : '');

export function requestView(
  request: RecoveryRequestRecord,
  now: Date,
  caller?: string,
): MessageInitShape<typeof RecoveryRequestSchema> {
  const status = statusAt(request, now);
  return {
    id: request._id,
    address: request.address,
    newWalletAddress: request.newWalletAddress,
    status,
    approvalsRequired: request.approvalsRequired,
    approvals: request.approvals,
    rejections: request.rejections,
    guardiansCount: request.guardians.length,
    timeLockHours: request.timeLockHours,
    createdAt: iso(request.createdAt),
    thresholdReachedAt: iso(request.thresholdReachedAt),
    unlocksAt: iso(request.unlocksAt),
    expiresAt: iso(request.expiresAt),
    closedAt:
      status === 'expired' && !request.closedAt ? iso(request.expiresAt) : iso(request.closedAt),
    callerDecision: caller
      ? (request.decisions.find((decision) => decision.guardian === caller)?.decision ?? '')
      : '',
  };
}
