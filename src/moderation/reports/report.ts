/**
 * An abuse report as stored: who reported whom and why, and for a message what the reporter
 * revealed and whether franking verified it (moderation.proto). Only operators read reports;
 * the reported account is never told of one.
 */
import type { Binary } from 'bson';
import type { IndexSpec } from '../../platform/store/document-store.js';

export const MESSAGE_REPORT_REASONS = [
  'spam',
  'harassment',
  'impersonation',
  'illegal_content',
  'other',
] as const;
export const ACCOUNT_REPORT_REASONS = ['spam', 'harassment', 'impersonation'] as const;
export type ReportReason = (typeof MESSAGE_REPORT_REASONS)[number];
export const RESOLUTIONS = ['dismissed', 'actioned'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** The reported message: where and when it was sent, and what the reporter revealed of it. */
export interface ReportedMessage {
  messageId: string;
  conversationId: string;
  sentAt: Date;
  /** The plaintext revealed (checked when `verified`, the reporter's claim otherwise). */
  plaintext?: Binary;
  /** The message was franked and the plaintext and key opened the server's binding. */
  verified: boolean;
}

export interface StoredReport {
  _id: string;
  kind: 'message' | 'account';
  reporterAddress: string;
  reportedAddress: string;
  reason: ReportReason;
  status: 'open' | 'resolved';
  createdAt: Date;
  message?: ReportedMessage;
  /**
   * What one reporter may report once: `message:<id>` for good, `account:<address>` while the
   * report is open (removed when it is resolved).
   */
  duplicateKey?: string;
  resolution?: Resolution;
  resolvedAt?: Date;
  resolvedBy?: string;
  note?: string;
}

export const REPORTS = 'abuse_reports';
export const DUPLICATE_INDEX = 'reporter_subject';

export const reportIndexes: IndexSpec[] = [
  {
    collection: REPORTS,
    name: DUPLICATE_INDEX,
    key: { reporterAddress: 1, duplicateKey: 1 },
    unique: true,
    partialFilterExpression: { duplicateKey: { $type: 'string' } },
  },
  { collection: REPORTS, name: 'by_status', key: { status: 1, createdAt: -1, _id: 1 } },
  { collection: REPORTS, name: 'newest', key: { createdAt: -1, _id: 1 } },
  { collection: REPORTS, name: 'by_reporter', key: { reporterAddress: 1 } },
  { collection: REPORTS, name: 'by_reported', key: { reportedAddress: 1 } },
];
