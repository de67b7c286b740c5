/** A stored report as operators see it (moderation.proto `Report`). */
import { create } from '@bufbuild/protobuf';
import { ReportSchema } from '../../gen/service/v1/moderation_pb.js';
import type { Report } from '../../gen/service/v1/moderation_pb.js';
import type { StoredReport } from './report.js';

const iso = (date: Date | undefined) => (date ? date.toISOString() : '');

export function reportView(stored: StoredReport): Report {
  const message = stored.message;
  return create(ReportSchema, {
    id: stored._id,
    kind: stored.kind,
    reporterAddress: stored.reporterAddress,
    reportedAddress: stored.reportedAddress,
    reason: stored.reason,
    status: stored.status,
    createdAt: iso(stored.createdAt),
    messageId: message?.messageId ?? '',
    conversationId: message?.conversationId ?? '',
    sentAt: iso(message?.sentAt),
    plaintext: message?.plaintext ? new Uint8Array(message.plaintext.buffer) : new Uint8Array(),
    verified: message?.verified ?? false,
    resolution: stored.resolution ?? '',
    resolvedAt: iso(stored.resolvedAt),
    resolvedBy: stored.resolvedBy ?? '',
    note: stored.note ?? '',
  });
}
