/**
 * Reporting a received message (moderation.proto, ReportMessage). The message is found as a
 * relation finds its target (messaging's RelationTargets): in the named conversation and
 * readable by the reporter, so a message of someone else's conversation, one the reporter
 * never received and a made-up id are the same `404`. A franked message is verified: the
 * revealed plaintext and key must open the commitment the server bound, and the server's tag
 * must verify, else `400 FRANKING_MISMATCH` and nothing is recorded; an unfranked one is
 * recorded as the reporter's unverified claim. Direct chats, groups and channels alike.
 */
import { Binary } from 'bson';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { TargetFields } from '../../messaging/conversations/conversations.js';
import type { ResolvedTarget } from '../../messaging/relations/relation-targets.js';
import type { StoredFranking } from '../../messaging/conversations/stored-franking.js';
import type { FrankingKeys } from '../franking/franking-keys.js';
import { opensCommitment } from '../franking/franking-payload.js';
import { MESSAGE_REPORT_REASONS } from './report.js';
import type { ReportReason, StoredReport } from './report.js';
import type { ReportRepository } from './report-repository.js';

/** Messaging's lookup of a message the caller can read (RelationTargets.resolve). */
export interface ReportTargets {
  resolve(caller: string, fields: TargetFields, messageId: string): Promise<ResolvedTarget>;
}

export interface MessageReportRequest extends TargetFields {
  readonly messageId: string;
  readonly reason: string;
  readonly plaintext: Uint8Array;
  readonly frankingKey: Uint8Array;
}

const MAX_PLAINTEXT_BYTES = 65_536;
const FRANKING_KEY_BYTES = 32;

export const frankingMismatch = () =>
  invalidArgument(
    'The plaintext and franking key do not open the message the server bound',
    'FRANKING_MISMATCH',
  );

export function reasonIn<T extends string>(reasons: readonly T[], reason: string): T {
  if (!(reasons as readonly string[]).includes(reason))
    throw invalidArgument(`reason must be one of ${reasons.join(', ')}`);
  return reason as T;
}

export class MessageReports {
  constructor(
    private readonly targets: ReportTargets,
    private readonly franking: FrankingKeys,
    private readonly reports: ReportRepository,
  ) {}

  async report(reporter: string, request: MessageReportRequest): Promise<StoredReport> {
    const reason: ReportReason = reasonIn(MESSAGE_REPORT_REASONS, request.reason);
    if (request.plaintext.length > MAX_PLAINTEXT_BYTES)
      throw invalidArgument(`plaintext must have at most ${MAX_PLAINTEXT_BYTES} bytes`);
    if (request.frankingKey.length !== 0 && request.frankingKey.length !== FRANKING_KEY_BYTES)
      throw invalidArgument(`franking_key must be ${FRANKING_KEY_BYTES} bytes`);
    const target = await this.targets.resolve(reporter, request, request.messageId);
    const { relation } = target;
    if (relation.senderAddress === '') throw invalidArgument('Only users’ messages are reported');
    if (relation.senderAddress === reporter)
      throw invalidArgument('You cannot report your own message');
    const franking = relation.franking;
    const verified = franking ? this.verify(franking, relation, request) : false;
    if (!franking && request.frankingKey.length > 0)
      throw invalidArgument('franking_key must be empty: the message was not franked');
    return this.reports.add({
      kind: 'message',
      reporterAddress: reporter,
      reportedAddress: relation.senderAddress,
      reason,
      message: {
        messageId: relation.messageId,
        conversationId: relation.conversationId,
        sentAt: relation.sentAt,
        ...(request.plaintext.length > 0 ? { plaintext: new Binary(request.plaintext) } : {}),
        verified,
      },
      duplicateKey: `message:${relation.messageId}`,
    });
  }

  /** True when the plaintext and key open the commitment and the server's tag is its own; else 400. */
  private verify(
    franking: StoredFranking,
    relation: ResolvedTarget['relation'],
    request: MessageReportRequest,
  ): true {
    if (request.frankingKey.length === 0 || request.plaintext.length === 0)
      throw invalidArgument('A franked message is reported with its plaintext and franking_key');
    const commitment = new Uint8Array(franking.commitment.buffer);
    const binding = {
      messageId: relation.messageId,
      conversationId: relation.conversationId,
      senderAddress: relation.senderAddress,
      sentAt: relation.sentAt,
      commitment,
    };
    const opened = opensCommitment(commitment, request.frankingKey, request.plaintext);
    const tagged = this.franking.verify(binding, franking.keyId, franking.tag.buffer);
    if (!opened || !tagged) throw frankingMismatch();
    return true;
  }
}
