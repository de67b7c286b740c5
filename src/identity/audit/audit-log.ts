/**
 * The audit trail of security events (sign-ins, failures, refresh-token reuse, revocations,
 * logouts, admin actions), kept in storage with the request id that caused each one. It never
 * holds tokens or signatures.
 */
import type { IndexSpec } from '../../platform/store/document-store.js';
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import type { CallInfo } from '../../platform/rpc/call-context.js';

export type AuditEvent =
  | 'sign_in'
  | 'registration'
  | 'sign_in_failed'
  | 'refresh'
  | 'refresh_reuse_detected'
  | 'refresh_revoked'
  | 'session_ended'
  | 'logout'
  | 'logout_all'
  | 'lockout_cleared'
  | 'permission_granted'
  | 'permission_revoked'
  | 'report_resolved'
  | 'account_warned'
  | 'account_suspended'
  | 'account_unsuspended';

export interface AuditEntry {
  _id: string;
  at: Date;
  event: AuditEvent;
  /** The account concerned, when known. */
  address?: string;
  sessionId?: string;
  ip: string;
  requestId: string;
  /** Short machine-readable detail, e.g. the failure reason. */
  detail?: string;
}

export const AUDIT_LOG = 'audit_log';
const RETENTION_DAYS = 180;

export const auditIndexes: IndexSpec[] = [
  {
    collection: AUDIT_LOG,
    name: 'retention',
    key: { at: 1 },
    expireAfterSeconds: RETENTION_DAYS * 24 * 3600,
  },
  { collection: AUDIT_LOG, name: 'by_address', key: { address: 1, at: -1 } },
];

export class AuditLog {
  private readonly entries: Collection<AuditEntry>;

  constructor(store: DocumentStore) {
    this.entries = store.collection<AuditEntry>(AUDIT_LOG);
  }

  async record(
    call: Pick<CallInfo, 'clientIp' | 'requestId'>,
    event: AuditEvent,
    fields: { address?: string; sessionId?: string; detail?: string } = {},
  ): Promise<void> {
    await this.entries.insertOne({
      at: new Date(),
      event,
      ip: call.clientIp,
      requestId: call.requestId,
      ...fields,
    });
  }

  /** Newest first; for operators and tests. */
  list(
    filter: Partial<Pick<AuditEntry, 'address' | 'event'>> = {},
    limit = 100,
  ): Promise<AuditEntry[]> {
    return this.entries.find(filter, { sort: { at: -1 }, limit });
  }
}
