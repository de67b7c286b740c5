/**
 * The moderation area: abuse reports that hold up under end-to-end encryption (message
 * franking), the operators' review of them and their actions on accounts (warn, suspend,
 * unsuspend), and the spam limit on new accounts (docs/areas/moderation.md).
 *
 * Built in two steps, as media is: its admission of sends (`createModerationAdmission`: the
 * franking key, suspended senders, the spam limit) before messaging and channels, which take it
 * as their `SendAdmission`; its service (`createModerationArea`) after them, since a report
 * finds its message through messaging's relation targets.
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { Suspensions } from '../accounts/suspensions.js';
import type { AuditLog } from '../identity/audit/audit-log.js';
import type { SessionManager } from '../identity/sessions/session-manager.js';
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { ModerationSettings } from '../platform/config/settings.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { AccountModeration } from './account-moderation.js';
import { loadFrankingKeys } from './franking/franking-keys.js';
import { ModerationAdmission } from './moderation-admission.js';
import { createModerationService } from './moderation-service.js';
import { MessageReports } from './reports/message-reports.js';
import type { ReportTargets } from './reports/message-reports.js';
import { reportIndexes } from './reports/report.js';
import { ReportRepository } from './reports/report-repository.js';
import { StrangerLimit } from './stranger-limit.js';

export interface ModerationAdmissionDependencies {
  readonly settings: ModerationSettings;
  /** The spam limit is on with the other abuse controls (RATE_LIMITS_ENABLED). */
  readonly limitsEnabled: boolean;
  /** DATA_DIR: the franking key made on first start when none is configured. */
  readonly dataDir: string;
  readonly sharedState: SharedState;
  readonly accounts: AccountRepository;
}

export async function createModerationAdmission(deps: ModerationAdmissionDependencies) {
  const franking = await loadFrankingKeys(deps.settings, deps.dataDir);
  const strangers = deps.limitsEnabled
    ? new StrangerLimit(deps.sharedState, deps.settings)
    : undefined;
  return {
    admission: new ModerationAdmission(deps.accounts, franking, strangers),
    franking,
    strangers,
  };
}

export type ModerationAdmissionParts = Awaited<ReturnType<typeof createModerationAdmission>>;

export interface ModerationDependencies {
  readonly store: DocumentStore;
  /** The first step's parts: the franking keys and the spam limit. */
  readonly admission: ModerationAdmissionParts;
  /** Messaging's lookup of a message the reporter can read. */
  readonly targets: ReportTargets;
  readonly accounts: AccountRepository;
  readonly suspensions: Suspensions;
  /** Identity's sessions, ended on every pod when an account is suspended. */
  readonly sessions: SessionManager;
  /** Identity's audit log, which the admin routes write too. */
  readonly audit: AuditLog;
  /** Whether the CAPTCHA gate checks answers (CAPTCHA_PROVIDER is not `off`). */
  readonly captchaConfigured: boolean;
}

/** Every index of the moderation area (created at start, and by the ensure-indexes command). */
export const moderationIndexes: IndexSpec[] = [...reportIndexes];

export async function createModerationArea(deps: ModerationDependencies) {
  await deps.store.ensureIndexes(moderationIndexes);
  const { franking, strangers } = deps.admission;
  const reports = new ReportRepository(deps.store);
  const accountData: AccountDataOwner = {
    // A move re-addresses the reports the account filed and those about it; a deletion
    // removes both (moderation.md).
    name: 'moderation',
    moveAccount: (from, to) => reports.moveAccount(from, to),
    deleteAccount: (address) => reports.removeAccount(address),
  };
  return {
    accountData,
    service: createModerationService({
      franking,
      reports,
      messageReports: new MessageReports(deps.targets, franking, reports),
      moderation: new AccountModeration(deps.suspensions, deps.sessions, deps.audit, (address) =>
        deps.accounts.exists(address),
      ),
      accounts: deps.accounts,
      audit: deps.audit,
      strangers,
      captchaConfigured: deps.captchaConfigured,
    }),
  };
}

export type ModerationArea = Awaited<ReturnType<typeof createModerationArea>>;
