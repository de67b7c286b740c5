/**
 * The recovery area of an api process: social recovery by guardians with a time lock, and
 * recovery backup codes (recovery.proto). Completing a recovery moves the account through the
 * account walk (`moves`, src/account-lifecycle); identity lends its view of wallets, its spent-signature
 * store and its keyed hash; notices go over /ws.
 *
 * Built in two steps, because the account walk goes over recovery's records too: first its
 * records (`createRecoveryRecords`: configurations, requests, and their `accountData` owner for
 * the walk), then, once the walk exists, the service over them (`createRecoveryArea`).
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { AccountsSettings } from '../platform/config/settings.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { WakeUps } from '../push/delivery/wake-ups.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { GuardianDecisions } from './guardian-decisions.js';
import { RecoveryAccountData } from './recovery-account-data.js';
import type { KeyedHash } from './recovery-codes.js';
import { RecoveryCompletion } from './recovery-completion.js';
import type { AccountMoves } from './recovery-completion.js';
import { RecoveryConfigs, recoveryConfigIndexes } from './recovery-config.js';
import { RecoveryNotices } from './recovery-notices.js';
import { RecoveryOpening } from './recovery-opening.js';
import type { Wallets } from './recovery-opening.js';
import { RecoveryRequests, recoveryRequestIndexes } from './recovery-request.js';
import { createRecoveryService } from './recovery-service.js';
import { RecoverySetup } from './recovery-setup.js';
import { RecoverySignatures } from './recovery-signatures.js';
import type { SignatureSpender } from './recovery-signatures.js';
import type { SignerRecovery } from '../identity/wallet/signer-recovery.js';

export interface RecoveryRecordsDependencies {
  readonly settings: Pick<AccountsSettings, 'recoveryHourMs'>;
  readonly store: DocumentStore;
}

/** Every index of the recovery area (created at start, and by the ensure-indexes command before a rollout). */
export const recoveryIndexes: IndexSpec[] = [...recoveryConfigIndexes, ...recoveryRequestIndexes];

export async function createRecoveryRecords({ settings, store }: RecoveryRecordsDependencies) {
  await store.ensureIndexes(recoveryIndexes);
  const configs = new RecoveryConfigs(store);
  const requests = new RecoveryRequests(store, settings.recoveryHourMs);
  return { configs, requests, accountData: new RecoveryAccountData(configs, requests) };
}

export type RecoveryRecords = Awaited<ReturnType<typeof createRecoveryRecords>>;

export interface RecoveryDependencies {
  readonly records: RecoveryRecords;
  readonly serviceName: string;
  readonly accounts: AccountRepository;
  readonly wallets: Wallets;
  readonly spentSignatures: SignatureSpender;
  /** Identity's signer recovery (identity/wallet/signer-recovery.ts), for guardians' and owners' signatures. */
  readonly signers: Pick<SignerRecovery, 'recover'>;
  /** Identity's secret MAC, for the backup codes' keyed hashes. */
  readonly mac: KeyedHash;
  readonly moves: AccountMoves;
  readonly events: MessagingEvents;
  /** Push wake-ups of the owner's and guardians' offline devices for recovery notices. */
  readonly wakeUps: WakeUps;
}

export function createRecoveryArea(deps: RecoveryDependencies) {
  const { configs, requests } = deps.records;
  const notices = new RecoveryNotices(deps.events, deps.wakeUps);
  const service = createRecoveryService({
    serviceName: deps.serviceName,
    accounts: deps.accounts,
    requests,
    setup: new RecoverySetup(configs, requests, notices, deps.mac),
    opening: new RecoveryOpening(configs, requests, notices, deps.wallets),
    decisions: new GuardianDecisions(requests, notices),
    completion: new RecoveryCompletion({
      configs,
      requests,
      moves: deps.moves,
      notices,
      wallets: deps.wallets,
      mac: deps.mac,
    }),
    signatures: new RecoverySignatures(deps.spentSignatures, deps.signers),
  });
  return { service };
}

export type RecoveryArea = ReturnType<typeof createRecoveryArea>;
