/**
 * ModerationService (moderation.proto): the franking keys, reports of messages and accounts,
 * the spam limit's challenge, and the operators' review (access declared in the proto).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  AnswerChallengeRequest,
  ListReportsRequest,
  ModerateAccountRequest,
  ReportAccountRequest,
  ReportMessageRequest,
  ResolveReportRequest,
} from '../gen/service/v1/moderation_pb.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import { requireCaller } from '../identity/auth/caller.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { conflict, invalidArgument, notFound, unavailable } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import { MODERATION_ACTIONS } from './account-moderation.js';
import type { AccountModeration, ModerationAction } from './account-moderation.js';
import type { FrankingKeys } from './franking/franking-keys.js';
import { reasonIn } from './reports/message-reports.js';
import type { MessageReports } from './reports/message-reports.js';
import { ACCOUNT_REPORT_REASONS, RESOLUTIONS } from './reports/report.js';
import type { ReportRepository } from './reports/report-repository.js';
import { reportView } from './reports/report-view.js';
import type { StrangerLimit } from './stranger-limit.js';

export interface ModerationServiceDependencies {
  readonly franking: FrankingKeys;
  readonly reports: ReportRepository;
  readonly messageReports: MessageReports;
  readonly moderation: AccountModeration;
  readonly accounts: AccountRepository;
  readonly audit: AuditLog;
  /** Undefined when the spam limit is off (RATE_LIMITS_ENABLED=false). */
  readonly strangers: StrangerLimit | undefined;
  /** Whether the CAPTCHA gate checks answers (CAPTCHA_PROVIDER is not `off`). */
  readonly captchaConfigured: boolean;
}

const MAX_NOTE_LENGTH = 500;
const MIN_SUSPENSION_SECONDS = 60;
const MAX_SUSPENSION_SECONDS = 31_536_000;

/** A wallet address parameter, lowercased; 400 otherwise. */
function walletAddress(value: string): string {
  if (!isWalletAddress(value)) throw invalidArgument('address must be a wallet address');
  return value.toLowerCase();
}

export function createModerationService(deps: ModerationServiceDependencies) {
  const { reports, accounts } = deps;
  return {
    getFrankingKeys() {
      return {
        success: true,
        message: 'Franking keys',
        keys: deps.franking.published.map((key) => ({ ...key, algorithm: 'Ed25519' })),
      };
    },

    async reportMessage(request: ReportMessageRequest, context: HandlerContext) {
      const reporter = requireCaller(context).address;
      const report = await deps.messageReports.report(reporter, request);
      const verified = report.message?.verified ?? false;
      return {
        success: true,
        message: verified ? 'Report recorded and verified' : 'Report recorded (unverified)',
        reportId: report._id,
        verified,
      };
    },

    async reportAccount(request: ReportAccountRequest, context: HandlerContext) {
      const reporter = requireCaller(context).address;
      const reported = walletAddress(request.address);
      if (reported === reporter) throw invalidArgument('You cannot report your own account');
      const reason = reasonIn(ACCOUNT_REPORT_REASONS, request.reason);
      if (!(await accounts.exists(reported))) throw notFound('No such account');
      const report = await reports.add({
        kind: 'account',
        reporterAddress: reporter,
        reportedAddress: reported,
        reason,
        duplicateKey: `account:${reported}`,
      });
      return { success: true, message: 'Report recorded', reportId: report._id };
    },

    async answerChallenge(_request: AnswerChallengeRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      // The gate verified the answer before this ran; without a provider nothing was checked.
      if (!deps.captchaConfigured)
        throw unavailable('No CAPTCHA is configured to answer', 'CAPTCHA_UNAVAILABLE');
      await deps.strangers?.lift(caller);
      return { success: true, message: 'Challenge answered' };
    },

    async listReports(request: ListReportsRequest) {
      const status = request.status;
      if (status !== '' && status !== 'open' && status !== 'resolved')
        throw invalidArgument('status must be open, resolved or empty');
      const page = await reports.page(
        status === '' ? undefined : status,
        pageSize(request.pageSize),
        decodeCursor(request.cursor),
      );
      return {
        success: true,
        message: 'Reports',
        reports: page.items.map(reportView),
        nextCursor: page.nextCursor,
      };
    },

    async resolveReport(request: ResolveReportRequest, context: HandlerContext) {
      const operator = requireCaller(context).address;
      const resolution = reasonIn(RESOLUTIONS, request.resolution);
      if (request.note.length > MAX_NOTE_LENGTH)
        throw invalidArgument(`note must have at most ${MAX_NOTE_LENGTH} characters`);
      const resolved = await reports.resolve(request.reportId, {
        resolution,
        resolvedBy: operator,
        note: request.note,
      });
      if (!resolved) {
        if (await reports.find(request.reportId)) throw conflict('The report is resolved already');
        throw notFound('No such report');
      }
      await deps.audit.record(callInfoOf(context), 'report_resolved', {
        address: operator,
        detail: `report:${resolved._id};${resolution};target:${resolved.reportedAddress}`,
      });
      return { success: true, message: 'Report resolved', report: reportView(resolved) };
    },

    async moderateAccount(request: ModerateAccountRequest, context: HandlerContext) {
      const operator = requireCaller(context).address;
      const address = walletAddress(request.address);
      if (address === operator) throw invalidArgument('Operators do not moderate themselves');
      if (!(MODERATION_ACTIONS as readonly string[]).includes(request.action))
        throw invalidArgument(`action must be one of ${MODERATION_ACTIONS.join(', ')}`);
      const action = request.action as ModerationAction;
      const seconds = request.durationSeconds;
      if (
        action === 'suspend' &&
        (seconds < MIN_SUSPENSION_SECONDS || seconds > MAX_SUSPENSION_SECONDS)
      )
        throw invalidArgument(
          `duration_seconds must be ${MIN_SUSPENSION_SECONDS} to ${MAX_SUSPENSION_SECONDS} for suspend`,
        );
      if (action !== 'suspend' && seconds !== 0)
        throw invalidArgument('duration_seconds is only for suspend');
      if (request.reportId.length > 64) throw invalidArgument('report_id is not a report id');
      const outcome = await deps.moderation.apply(callInfoOf(context), {
        operator,
        address,
        action,
        durationMs: seconds * 1000,
        reportId: request.reportId,
      });
      return {
        success: true,
        message: `Account ${action === 'warn' ? 'warned' : `${action}ed`}`,
        address,
        suspendedUntil: outcome.suspendedUntil?.toISOString() ?? '',
        sessionsEnded: outcome.sessionsEnded,
      };
    },
  };
}
