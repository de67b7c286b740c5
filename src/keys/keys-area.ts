/**
 * The keys area of an api process: key bundles published by their owners, stored (the durable
 * record, with the one-time prekeys) and served from the key directory, a DHT among the api
 * pods that the app opens with the rules of this area's record verifier. Phone registrations
 * (identity) are completed by a first bundle; the relay reads stored bundles for certificates.
 */
import type { WalletSignatures } from '../identity/wallet/wallet-signatures.js';
import type { RecordDirectory } from '../platform/dht/record-directory.js';
import type { Logger } from '../platform/logging/logger.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { KeyRecordVerifier } from './directory/key-record-rules.js';
import { KeyRecordRepublisher } from './directory/republisher.js';
import { SharedDirectoryReads } from './directory/shared-directory-reads.js';
import { VerifiedDirectoryCopies } from './directory/verified-copies.js';
import type { KeysMetrics } from './keys-metrics.js';
import { KeysAccountData } from './keys-account-data.js';
import { createKeysService } from './keys-service.js';
import type { RegistrationCompletion } from './publish-bundle.js';
import { KeyBundleRepository } from './store/key-bundle-repository.js';
import { OneTimePreKeys, oneTimePreKeyIndexes } from './store/one-time-prekeys.js';

export interface KeysDependencies {
  /** SERVICE_NAME: it is part of the signed statements. */
  readonly serviceName: string;
  /** Checks directory records; the directory was opened with its rules. */
  readonly verifier: KeyRecordVerifier;
  /**
   * Identity's wallet signatures, with the chains' verifier the app built (ETH_RPC_URLS): a
   * contract wallet's key binding is verified on chain at publish and its block recorded.
   */
  readonly signatures: Pick<WalletSignatures, 'verify' | 'contractWalletsOn'>;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly directory: RecordDirectory;
  readonly registrations: RegistrationCompletion;
  /** Identity's retired wallets: a deleted or moved-away account's address is served no bundle. */
  readonly isRetired: (address: string) => Promise<boolean>;
  readonly metrics: KeysMetrics;
  readonly logger: Logger;
}

/** Every index of the keys area (created at start, and by the ensure-indexes command before a rollout). */
export const keysIndexes: IndexSpec[] = [...oneTimePreKeyIndexes];

export async function createKeysArea(deps: KeysDependencies) {
  await deps.store.ensureIndexes(keysIndexes);
  const bundles = new KeyBundleRepository(deps.store);
  const prekeys = new OneTimePreKeys(deps.store);
  const verifiedCopies = new VerifiedDirectoryCopies();
  const service = createKeysService({
    serviceName: deps.serviceName,
    directory: deps.directory,
    bundles,
    prekeys,
    verifiedCopies,
    directoryReads: new SharedDirectoryReads(deps.directory, deps.verifier, verifiedCopies),
    registrations: deps.registrations,
    metrics: deps.metrics,
    isRetired: deps.isRetired,
    signatures: deps.signatures,
  });
  /** `republisher` keeps the directory holding the stored bundles; the app starts and stops it. */
  return {
    service,
    bundles,
    accountData: new KeysAccountData(bundles, prekeys),
    republisher: new KeyRecordRepublisher(bundles, deps.directory, deps.sharedState, deps.logger),
  };
}

export type KeysArea = Awaited<ReturnType<typeof createKeysArea>>;
